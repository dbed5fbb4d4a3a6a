#pragma once
// The strict-FP32 GPU reference of a workload: the same cuDNN graphs as its
// `cudnn_eager` baseline with tensor cores forbidden (FMA math only), so the
// whole output of a full-size run can be compared on the GPU, next to the
// float64 points sampled on the host. Registered by the workload's
// kernels/<workload>/cudnn_eager.cu in the gpu build; the cpu build has none.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kernelgate/candidate.hpp"

namespace kg {

struct StrictReference {
  std::string workload;  // suite id
  std::string summary;   // one line: how it computes
  std::function<std::size_t(const Axes&)> workspace_bytes;
  // Same contract as a candidate's launch: reads args' inputs, writes args.output
  // on args.stream, uses at most args.workspace_bytes of args.workspace.
  std::function<void(const LaunchArgs&)> launch;
};

std::vector<StrictReference>& strict_reference_registry();
// nullptr when the workload has none (always in the cpu build).
const StrictReference* find_strict_reference(std::string_view workload);

struct StrictReferenceRegistrar {
  explicit StrictReferenceRegistrar(StrictReference reference);
};

}  // namespace kg

// KG_REGISTER_STRICT_REFERENCE({.workload = ..., .summary = ..., .workspace_bytes = ..., .launch = ...});
#define KG_REGISTER_STRICT_REFERENCE(...)                                                              \
  static const ::kg::StrictReferenceRegistrar KG_CANDIDATE_CONCAT(kg_strict_reference_registrar_, \
                                                                  __LINE__) {                     \
    ::kg::StrictReference __VA_ARGS__                                                              \
  }
