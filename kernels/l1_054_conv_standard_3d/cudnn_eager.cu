// cudnn_eager: nn.Conv3d as PyTorch eager runs it, one cuDNN forward
// convolution with TF32 allowed (kernels/common/standard_conv_cudnn.cuh).
// Also registers the strict-FP32 GPU reference: the same graph without tensor
// cores. GPU only: the cpu build compiles this file to nothing.
#if defined(KG_GPU)
#include "common/standard_conv_cudnn.cuh"
#include "kernelgate/strict_reference.hpp"

namespace {

using kg::cudnn::MathMode;

// The input's spatial dimensions, in order.
const std::vector<std::string> kSpatial{"depth", "width", "height"};

std::size_t workspace_bytes(const kg::Axes& axes, MathMode math) {
  return kg::kernels::standard_conv_workspace_bytes(axes, kSpatial, math);
}

void launch(const kg::LaunchArgs& args, MathMode math) { kg::kernels::launch_standard_conv(args, kSpatial, math); }

}  // namespace

KG_REGISTER_CANDIDATE({
    .workload = "l1_054_conv_standard_3d",
    .id = "cudnn_eager",
    .precision = "tf32",
    .summary = "PyTorch eager's 3-D convolution: one cuDNN forward convolution, TF32 allowed",
    .workspace_bytes = [](const kg::Axes& axes) { return workspace_bytes(axes, MathMode::tf32_allowed); },
    .launch = [](const kg::LaunchArgs& args) { launch(args, MathMode::tf32_allowed); },
});

KG_REGISTER_STRICT_REFERENCE({
    .workload = "l1_054_conv_standard_3d",
    .summary = "cuDNN 3-D forward convolution, strict FP32 (no tensor cores, FMA math)",
    .workspace_bytes = [](const kg::Axes& axes) { return workspace_bytes(axes, MathMode::strict_fp32); },
    .launch = [](const kg::LaunchArgs& args) { launch(args, MathMode::strict_fp32); },
});

#endif  // KG_GPU
