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
  std::string workload{};  // suite id; left out: the path's, as for a candidate
  std::string summary;   // one line: how it computes
  std::function<std::size_t(const Axes&)> workspace_bytes;
  // Same contract as a candidate's launch: reads args' inputs, writes args.output
  // on args.stream, uses at most args.workspace_bytes of args.workspace.
  std::function<void(const LaunchArgs&)> launch;
};

std::vector<StrictReference>& strict_reference_registry();
// nullptr when the workload has none (always in the cpu build).
const StrictReference* find_strict_reference(std::string_view workload);

// A refused registration (a workload other than the path's, a second one for
// a workload) is reported by check_candidate_registry.
struct StrictReferenceRegistrar {
  explicit StrictReferenceRegistrar(StrictReference reference, RegistrationSite site = {});
};

}  // namespace kg

// KG_REGISTER_STRICT_REFERENCE({.summary = ..., .workspace_bytes = ..., .launch = ...});
#define KG_REGISTER_STRICT_REFERENCE(...)                                                              \
  static const ::kg::StrictReferenceRegistrar KG_CANDIDATE_CONCAT(kg_strict_reference_registrar_, \
                                                                  __LINE__) {                     \
    ::kg::StrictReference __VA_ARGS__, KG_REGISTRATION_SITE                                       \
  }
