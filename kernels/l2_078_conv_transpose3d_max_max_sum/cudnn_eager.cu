// cudnn_eager: the steps PyTorch eager runs for
// ConvTranspose3d(bias) -> MaxPool3d(2) -> MaxPool3d(3) -> sum(dim=1, keepdim):
//   1. cuDNN backward-data convolution into a full-size intermediate, TF32
//      allowed, engine from cuDNN's heuristics;
//   2. the bias added in place as a separate elementwise pass (PyTorch's
//      `output.add_(bias)` after cudnn_convolution_transpose);
//   3. each max pool as PyTorch's max_pool3d_with_indices kernel: one thread
//      per output, NaN propagates, the int64 argmax indices are written too
//      (eager computes them even when they are not returned);
//   4. the channel sum, accumulated in fp32.
// Every intermediate lives in the workspace, as eager's allocations would.
// Also registers the strict-FP32 GPU reference (no tensor cores). The cpu
// build, which has no cuDNN, registers it absent.
#if defined(KG_GPU)
#include <cmath>
#include <cstdint>

#include "common/cudnn_eager.cuh"
#include "kernelgate/candidate.hpp"
#include "kernelgate/cuda.hpp"
#include "kernelgate/cudnn/eager.hpp"

namespace {

using kg::cudnn::MathMode;

constexpr int kThreads = 256;

struct Dims3 {
  std::int64_t d, h, w;
  __host__ __device__ std::int64_t volume() const { return d * h * w; }
};

struct Shapes {
  kg::cudnn::ConvolutionShape convolution;
  std::int64_t batch = 0, channels = 0;
  Dims3 conv{}, pool1{}, pool2{};
  std::size_t conv_elements() const { return static_cast<std::size_t>(batch * channels * conv.volume()); }
  std::size_t pool1_elements() const { return static_cast<std::size_t>(batch * channels * pool1.volume()); }
  std::size_t pool2_elements() const { return static_cast<std::size_t>(batch * channels * pool2.volume()); }
};

Shapes shapes(const kg::Axes& axes) {
  const std::int64_t n = axes.at("batch_size"), cin = axes.at("in_channels"), cout = axes.at("out_channels");
  const std::int64_t k = axes.at("kernel_size"), stride = axes.at("stride"), padding = axes.at("padding");
  const Dims3 in{axes.at("depth"), axes.at("height"), axes.at("width")};
  auto transposed = [&](std::int64_t extent) { return (extent - 1) * stride - 2 * padding + k; };
  Shapes s;
  s.batch = n;
  s.channels = cout;
  s.conv = {transposed(in.d), transposed(in.h), transposed(in.w)};
  s.pool1 = {s.conv.d / 2, s.conv.h / 2, s.conv.w / 2};        // MaxPool3d(2): floor
  s.pool2 = {s.pool1.d / 3, s.pool1.h / 3, s.pool1.w / 3};     // MaxPool3d(3): floor
  s.convolution.direction = kg::cudnn::ConvolutionDirection::backward_data;
  s.convolution.x = {n, cout, s.conv.d, s.conv.h, s.conv.w};
  s.convolution.w = {cin, cout, k, k, k};
  s.convolution.y = {n, cin, in.d, in.h, in.w};
  s.convolution.padding = {padding, padding, padding};
  s.convolution.stride = {stride, stride, stride};
  s.convolution.dilation = {1, 1, 1};
  return s;
}

unsigned int blocks_for(std::size_t items) {
  return static_cast<unsigned int>((items + kThreads - 1) / kThreads);
}

__global__ void add_channel_bias(float* data, const float* bias, std::int64_t channels, std::int64_t volume,
                                 std::int64_t elements) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < elements) data[i] += bias[(i / volume) % channels];
}

// PyTorch's max_pool3d_with_indices_single_out_frame for kernel = stride =
// `window`, no padding or dilation: max over the window in d, h, w order,
// NaN wins, the index is the flat position inside the input plane.
__global__ void max_pool3d_with_indices(const float* input, float* output, std::int64_t* indices,
                                        std::int64_t planes, Dims3 in, Dims3 out, int window) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= planes * out.volume()) return;
  const std::int64_t plane = i / out.volume();
  std::int64_t rest = i % out.volume();
  const std::int64_t od = rest / (out.h * out.w);
  rest %= out.h * out.w;
  const std::int64_t oh = rest / out.w, ow = rest % out.w;
  const float* source = input + plane * in.volume();
  float best = -INFINITY;
  std::int64_t best_index = (od * window * in.h + oh * window) * in.w + ow * window;
  for (int kd = 0; kd < window; ++kd)
    for (int kh = 0; kh < window; ++kh)
      for (int kw = 0; kw < window; ++kw) {
        const std::int64_t index = ((od * window + kd) * in.h + oh * window + kh) * in.w + ow * window + kw;
        const float value = source[index];
        if (value > best || isnan(value)) {
          best = value;
          best_index = index;
        }
      }
  output[i] = best;
  indices[i] = best_index;
}

__global__ void sum_over_channels(const float* input, float* output, std::int64_t batch, std::int64_t channels,
                                  std::int64_t volume) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= batch * volume) return;
  const std::int64_t n = i / volume, position = i % volume;
  const float* source = input + n * channels * volume + position;
  float sum = 0.0f;
  for (std::int64_t c = 0; c < channels; ++c) sum += source[c * volume];
  output[i] = sum;
}

struct Intermediates {
  float* conv;
  float* pool1;
  std::int64_t* pool1_indices;
  float* pool2;
  std::int64_t* pool2_indices;
};

Intermediates carve(kg::cudnn::WorkspaceCarver& carver, const Shapes& s) {
  Intermediates parts;
  parts.conv = carver.take<float>(s.conv_elements());
  parts.pool1 = carver.take<float>(s.pool1_elements());
  parts.pool1_indices = carver.take<std::int64_t>(s.pool1_elements());
  parts.pool2 = carver.take<float>(s.pool2_elements());
  parts.pool2_indices = carver.take<std::int64_t>(s.pool2_elements());
  return parts;
}

std::size_t workspace_bytes(const kg::Axes& axes, MathMode math) {
  const Shapes s = shapes(axes);
  kg::cudnn::WorkspaceCarver carver;
  carve(carver, s);
  return carver.used() + kg::cudnn::convolution_workspace_bytes(s.convolution, math);
}

void launch(const kg::LaunchArgs& args, MathMode math) {
  const Shapes s = shapes(args.axes);
  kg::cudnn::WorkspaceCarver carver(args.workspace);
  const Intermediates parts = carve(carver, s);
  const std::size_t scratch_bytes = args.workspace_bytes > carver.used() ? args.workspace_bytes - carver.used() : 0;
  kg::cudnn::run_convolution(s.convolution, math, args.in("x"), args.in("weight"), parts.conv, carver.rest(),
                             scratch_bytes, args.stream);
  const std::int64_t planes = s.batch * s.channels;
  kg::launch(add_channel_bias, dim3(blocks_for(s.conv_elements())), dim3(kThreads), 0, args.stream, parts.conv,
             args.in("bias"), s.channels, s.conv.volume(), static_cast<std::int64_t>(s.conv_elements()));
  kg::launch(max_pool3d_with_indices, dim3(blocks_for(s.pool1_elements())), dim3(kThreads), 0, args.stream,
             static_cast<const float*>(parts.conv), parts.pool1, parts.pool1_indices, planes, s.conv, s.pool1, 2);
  kg::launch(max_pool3d_with_indices, dim3(blocks_for(s.pool2_elements())), dim3(kThreads), 0, args.stream,
             static_cast<const float*>(parts.pool1), parts.pool2, parts.pool2_indices, planes, s.pool1, s.pool2, 3);
  kg::launch(sum_over_channels, dim3(blocks_for(static_cast<std::size_t>(s.batch * s.pool2.volume()))), dim3(kThreads),
             0, args.stream, static_cast<const float*>(parts.pool2), args.output, s.batch, s.channels,
             s.pool2.volume());
}

}  // namespace

KG_REGISTER_CUDNN_EAGER({
    .summary = "PyTorch eager's steps: cuDNN backward-data convolution (TF32), bias add, two max pools with "
               "indices, channel sum",
    .reference_summary =
        "cuDNN backward-data convolution in strict FP32 (no tensor cores), bias, max pools, channel sum",
    .workspace_bytes = workspace_bytes,
    .launch = launch,
});

#else  // the cpu build, without cuDNN: not_supported on the simulated GPU
#include "common/cudnn_eager.cuh"

KG_REGISTER_CUDNN_EAGER_ABSENT();

#endif  // KG_GPU
