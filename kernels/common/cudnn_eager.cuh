#pragma once
// A workload's cudnn_eager baseline and its strict-FP32 GPU reference are
// the same cuDNN steps in two math modes: TF32 allowed, as PyTorch eager runs
// them, for the candidate, and tensor cores forbidden for the reference. A
// kernels/<workload>/cudnn_eager.cu writes its workspace and launch once, as
// functions of the math mode, and registers both with
//   KG_REGISTER_CUDNN_EAGER({.summary = ..., .reference_summary = ...,
//                            .workspace_bytes = ..., .launch = ...});
// GPU only.
#if defined(KG_GPU)
#include <cstddef>
#include <functional>
#include <string>

#include "kernelgate/candidate.hpp"
#include "kernelgate/cudnn/eager.hpp"
#include "kernelgate/strict_reference.hpp"

namespace kg::kernels {

struct CudnnEager {
  std::string summary;            // the candidate's, TF32 allowed
  std::string reference_summary;  // the strict-FP32 reference's
  std::function<std::size_t(const Axes&, cudnn::MathMode)> workspace_bytes;
  std::function<void(const LaunchArgs&, cudnn::MathMode)> launch;
};

// Registers the candidate (precision tf32) and the reference, both named by
// the file's path.
class CudnnEagerRegistrar {
 public:
  CudnnEagerRegistrar(const CudnnEager& eager, RegistrationSite site)
      : candidate_(Candidate{.precision = "tf32",
                             .summary = eager.summary,
                             .workspace_bytes = workspace(eager, cudnn::MathMode::tf32_allowed),
                             .launch = run(eager, cudnn::MathMode::tf32_allowed)},
                   site),
        reference_(StrictReference{.summary = eager.reference_summary,
                                   .workspace_bytes = workspace(eager, cudnn::MathMode::strict_fp32),
                                   .launch = run(eager, cudnn::MathMode::strict_fp32)},
                   site) {}

 private:
  static std::function<std::size_t(const Axes&)> workspace(const CudnnEager& eager, cudnn::MathMode math) {
    return [bytes = eager.workspace_bytes, math](const Axes& axes) { return bytes(axes, math); };
  }
  static std::function<void(const LaunchArgs&)> run(const CudnnEager& eager, cudnn::MathMode math) {
    return [launch = eager.launch, math](const LaunchArgs& args) { launch(args, math); };
  }

  CandidateRegistrar candidate_;
  StrictReferenceRegistrar reference_;
};

}  // namespace kg::kernels

#define KG_REGISTER_CUDNN_EAGER(...)                                                  \
  static const ::kg::kernels::CudnnEagerRegistrar kg_cudnn_eager_registrar {          \
    ::kg::kernels::CudnnEager __VA_ARGS__, KG_REGISTRATION_SITE                       \
  }
#endif  // KG_GPU
