#pragma once
// A workload's cudnn_eager baseline and its strict-FP32 GPU reference are
// the same cuDNN steps in two math modes: TF32 allowed, as PyTorch eager runs
// them, for the candidate, and tensor cores forbidden for the reference. A
// kernels/<workload>/cudnn_eager.cu writes its workspace and launch once, as
// functions of the math mode, and registers both with
//   KG_REGISTER_CUDNN_EAGER({.summary = ..., .reference_summary = ...,
//                            .workspace_bytes = ..., .launch = ...});
// The cpu build has no cuDNN: each file registers in its place, with
// KG_REGISTER_CUDNN_EAGER_ABSENT(), a cudnn_eager that is not_supported on the
// simulated GPU and left out on the cpu device (Candidate::gpu_library).
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
                             .launch = run(eager, cudnn::MathMode::tf32_allowed),
                             .gpu_library = "cuDNN"},
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

#else  // the cpu build
#include <string>

#include "kernelgate/candidate.hpp"

namespace kg::kernels {

// The cudnn_eager of a workload in a build without cuDNN.
inline Candidate cudnn_eager_absent() {
  return Candidate{.precision = "tf32",
                   .summary = "PyTorch eager through cuDNN: built by the gpu build only",
                   .unsupported_reason =
                       [](const Axes&) {
                         return std::string("needs cuDNN, which this build does not link: the simulated GPU has "
                                            "none (cudnn_eager runs on a GPU, in the gpu build)");
                       },
                   .launch = [](const LaunchArgs&) { throw Error("cudnn_eager: this build has no cuDNN"); },
                   .gpu_library = "cuDNN"};
}

}  // namespace kg::kernels

#define KG_REGISTER_CUDNN_EAGER_ABSENT() \
  static const ::kg::CandidateRegistrar kg_cudnn_eager_absent_registrar{::kg::kernels::cudnn_eager_absent(), \
                                                                        KG_REGISTRATION_SITE}
#endif  // KG_GPU
