#pragma once
// What ptxas gave a kernel in the gpu build (kernels/resources.json, made by
// ci/kernel-resources.sh), by the kernel's mangled symbol: interpret mode has
// no registers of its own, so a model run's occupancy takes them from here
// (docs/roofline.md). The candidate registry holds the tables
// (kernelgate/candidate.hpp), interpret mode looks launches up in them
// (kernelgate/interpret/counters.hpp).
#include <cstddef>

namespace kg {

struct KernelResources {
  int registers_per_thread = 0;
  std::size_t static_smem_bytes = 0;
};

}  // namespace kg
