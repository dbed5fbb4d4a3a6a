// cudnn_eager: what PyTorch eager runs for ConvTranspose2d with default
// settings: cuDNN's backward-data convolution, TF32 allowed
// (torch.backends.cudnn.allow_tf32), engine from cuDNN's heuristics
// (benchmark=False). The same-run baseline of the gate's ratio. In the gpu
// build it also registers the strict-FP32 GPU reference: the same graph with
// tensor cores forbidden. The cpu build, which has no cuDNN, registers it absent.
#if defined(KG_GPU)
#include "common/cudnn_eager.cuh"
#include "kernelgate/candidate.hpp"
#include "kernelgate/cudnn/eager.hpp"

namespace {

using kg::cudnn::MathMode;

// ConvTranspose2d(x [N, Cin, H, W], weight [Cin, Cout/g, k, k]) is the
// backward-data pass of the forward convolution from [N, Cout, Ho, Wo] to x.
kg::cudnn::ConvolutionShape transposed_convolution(const kg::Axes& axes) {
  const std::int64_t n = axes.at("batch_size"), cin = axes.at("in_channels"), cout = axes.at("out_channels");
  const std::int64_t k = axes.at("kernel_size"), stride = axes.at("stride"), padding = axes.at("padding");
  const std::int64_t output_padding = axes.at("output_padding"), groups = axes.at("groups");
  const std::int64_t h = axes.at("height_in"), w = axes.at("width_in");
  const std::int64_t ho = (h - 1) * stride - 2 * padding + k + output_padding;
  const std::int64_t wo = (w - 1) * stride - 2 * padding + k + output_padding;
  kg::cudnn::ConvolutionShape shape;
  shape.direction = kg::cudnn::ConvolutionDirection::backward_data;
  shape.x = {n, cout, ho, wo};
  shape.w = {cin, cout / groups, k, k};
  shape.y = {n, cin, h, w};
  shape.padding = {padding, padding};
  shape.stride = {stride, stride};
  shape.dilation = {1, 1};
  return shape;
}

std::size_t workspace_bytes(const kg::Axes& axes, MathMode math) {
  return kg::cudnn::convolution_workspace_bytes(transposed_convolution(axes), math);
}

void launch(const kg::LaunchArgs& args, MathMode math) {
  kg::cudnn::run_convolution(transposed_convolution(args.axes), math, args.in("x"), args.in("weight"), args.output,
                             args.workspace, args.workspace_bytes, args.stream);
}

}  // namespace

KG_REGISTER_CUDNN_EAGER({
    .summary = "PyTorch eager's path: cuDNN backward-data convolution, TF32 allowed, heuristics' engine",
    .reference_summary = "cuDNN backward-data convolution, strict FP32 (no tensor cores, FMA math)",
    .workspace_bytes = workspace_bytes,
    .launch = launch,
});

#else  // the cpu build, without cuDNN: not_supported on the simulated GPU
#include "common/cudnn_eager.cuh"

KG_REGISTER_CUDNN_EAGER_ABSENT();

#endif  // KG_GPU
