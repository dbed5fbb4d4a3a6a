// cudnn_eager: depthwise Conv2d (groups = in_channels) then the pointwise 1x1
// Conv2d, each a cuDNN forward convolution with TF32 allowed and the engine
// from cuDNN's heuristics, the depthwise result going through device memory
// as in PyTorch eager. (For fp32 NCHW PyTorch itself sends the depthwise step
// to its own CUDA kernel; docs/gpu-runner.md says why cuDNN is used here.)
// Also registers the strict-FP32 GPU reference: the same graphs without
// tensor cores. The cpu build, which has no cuDNN, registers it absent.
#if defined(KG_GPU)
#include "common/cudnn_eager.cuh"
#include "kernelgate/candidate.hpp"
#include "kernelgate/cudnn/eager.hpp"

namespace {

using kg::cudnn::MathMode;

struct Shapes {
  kg::cudnn::ConvolutionShape depthwise;
  kg::cudnn::ConvolutionShape pointwise;
  std::size_t intermediate_elements = 0;
};

Shapes shapes(const kg::Axes& axes) {
  const std::int64_t n = axes.at("batch_size"), cin = axes.at("in_channels"), cout = axes.at("out_channels");
  const std::int64_t k = axes.at("kernel_size"), stride = axes.at("stride"), padding = axes.at("padding");
  const std::int64_t dilation = axes.at("dilation"), h = axes.at("height"), w = axes.at("width");
  const std::int64_t ho = (h + 2 * padding - dilation * (k - 1) - 1) / stride + 1;
  const std::int64_t wo = (w + 2 * padding - dilation * (k - 1) - 1) / stride + 1;
  Shapes s;
  s.depthwise.x = {n, cin, h, w};
  s.depthwise.w = {cin, 1, k, k};
  s.depthwise.y = {n, cin, ho, wo};
  s.depthwise.padding = {padding, padding};
  s.depthwise.stride = {stride, stride};
  s.depthwise.dilation = {dilation, dilation};
  s.pointwise.x = {n, cin, ho, wo};
  s.pointwise.w = {cout, cin, 1, 1};
  s.pointwise.y = {n, cout, ho, wo};
  s.pointwise.padding = {0, 0};
  s.pointwise.stride = {1, 1};
  s.pointwise.dilation = {1, 1};
  s.intermediate_elements = static_cast<std::size_t>(n * cin * ho * wo);
  return s;
}

std::size_t workspace_bytes(const kg::Axes& axes, MathMode math) {
  const Shapes s = shapes(axes);
  kg::cudnn::WorkspaceCarver carver;
  carver.take<float>(s.intermediate_elements);
  return carver.used() + std::max(kg::cudnn::convolution_workspace_bytes(s.depthwise, math),
                                  kg::cudnn::convolution_workspace_bytes(s.pointwise, math));
}

void launch(const kg::LaunchArgs& args, MathMode math) {
  const Shapes s = shapes(args.axes);
  kg::cudnn::WorkspaceCarver carver(args.workspace);
  float* intermediate = carver.take<float>(s.intermediate_elements);
  const std::size_t scratch_bytes = args.workspace_bytes > carver.used() ? args.workspace_bytes - carver.used() : 0;
  kg::cudnn::run_convolution(s.depthwise, math, args.in("x"), args.in("depthwise_weight"), intermediate,
                             carver.rest(), scratch_bytes, args.stream);
  kg::cudnn::run_convolution(s.pointwise, math, intermediate, args.in("pointwise_weight"), args.output,
                             carver.rest(), scratch_bytes, args.stream);
}

}  // namespace

KG_REGISTER_CUDNN_EAGER({
    .summary = "PyTorch eager's two steps: cuDNN depthwise then 1x1 forward convolution, TF32 allowed",
    .reference_summary = "cuDNN depthwise then 1x1 forward convolution, strict FP32 (no tensor cores, FMA math)",
    .workspace_bytes = workspace_bytes,
    .launch = launch,
});

#else  // the cpu build, without cuDNN: not_supported on the simulated GPU
#include "common/cudnn_eager.cuh"

KG_REGISTER_CUDNN_EAGER_ABSENT();

#endif  // KG_GPU
