#pragma once
// A kernel's shared memory against the GPU it runs on: its own design limit,
// or less where the GPU allows a block less (an A100 163 KiB, an L40S
// 99 KiB), so that a tile the GPU cannot hold is not_supported with the
// reason, or a smaller tile, rather than a failed launch.
#include <algorithm>
#include <cstddef>

#include "kernelgate/cuda.hpp"

namespace kg::kernels {

// The dynamic shared memory a block of this kernel may use on this GPU.
inline std::size_t block_smem_limit(std::size_t design_limit) {
  const std::size_t device = kg::max_dynamic_smem_per_block();
  return device > 0 ? std::min(design_limit, device) : design_limit;
}

}  // namespace kg::kernels
