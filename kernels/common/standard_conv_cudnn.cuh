#pragma once
// The cudnn_eager baseline of a standard convolution without bias (nn.Conv2d,
// nn.Conv3d; KernelBench's level-1 conv problems): one cuDNN forward
// convolution, TF32 allowed and the engine from cuDNN's heuristics, as
// PyTorch eager runs it, and the same graph in strict FP32 as the workload's
// GPU reference. A workload's cudnn_eager.cu registers both with
// KG_REGISTER_CUDNN_EAGER (common/cudnn_eager.cuh) and standard_conv_eager,
// naming its spatial axes in the order of the input's dimensions. GPU only.
#if defined(KG_GPU)
#include <cstdint>
#include <string>
#include <vector>

#include "common/cudnn_eager.cuh"
#include "kernelgate/candidate.hpp"
#include "kernelgate/cudnn/eager.hpp"

namespace kg::kernels {

// x [batch_size, in_channels, spatial...] * weight [out_channels,
// in_channels / groups, kernel_size...] with one stride, padding and dilation
// for every spatial dimension.
inline cudnn::ConvolutionShape standard_conv_shape(const Axes& axes, const std::vector<std::string>& spatial) {
  const std::int64_t n = axes.at("batch_size"), cin = axes.at("in_channels"), cout = axes.at("out_channels");
  const std::int64_t k = axes.at("kernel_size"), stride = axes.at("stride"), padding = axes.at("padding");
  const std::int64_t dilation = axes.at("dilation"), groups = axes.at("groups");
  cudnn::ConvolutionShape s;
  s.x = {n, cin};
  s.w = {cout, cin / groups};
  s.y = {n, cout};
  for (const std::string& name : spatial) {
    const std::int64_t extent = axes.at(name);
    s.x.push_back(extent);
    s.w.push_back(k);
    s.y.push_back((extent + 2 * padding - dilation * (k - 1) - 1) / stride + 1);
    s.padding.push_back(padding);
    s.stride.push_back(stride);
    s.dilation.push_back(dilation);
  }
  return s;
}

// The steps of the workload whose input's spatial dimensions are the axes
// `spatial`, in the input's order ("2-D": height, width).
inline CudnnEager standard_conv_eager(const std::string& dimensions, std::vector<std::string> spatial) {
  return CudnnEager{
      .summary = "PyTorch eager's " + dimensions + " convolution: one cuDNN forward convolution, TF32 allowed",
      .reference_summary = "cuDNN " + dimensions + " forward convolution, strict FP32 (no tensor cores, FMA math)",
      .workspace_bytes =
          [spatial](const Axes& axes, cudnn::MathMode math) {
            return cudnn::convolution_workspace_bytes(standard_conv_shape(axes, spatial), math);
          },
      .launch =
          [spatial](const LaunchArgs& args, cudnn::MathMode math) {
            cudnn::run_convolution(standard_conv_shape(args.axes, spatial), math, args.in("x"), args.in("weight"),
                                   args.output, args.workspace, args.workspace_bytes, args.stream);
          },
  };
}

}  // namespace kg::kernels
#endif  // KG_GPU
