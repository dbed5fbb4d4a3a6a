// The always-runnable baseline: ConvTranspose3d (with bias), MaxPool3d(2),
// MaxPool3d(3), sum over channels, straight from the definition, FP32, every
// legal stride, padding and kernel size. Slow on purpose: it is the obviously
// correct candidate the fast ones are compared with.
//
// conv[n, co, od, oh, ow] = bias[co] + sum over ci, kd, kh, kw with
//   od = id * stride - padding + kd (likewise h, w) of
//   x[n, ci, id, ih, iw] * weight[ci, co, kd, kh, kw]
// pool2 then pool3 (both floor mode, no padding) is pool2[p] = max conv[2p..2p+1],
// pool3[q] = max pool2[3q..3q+2]: together the max over conv[6q..6q+5].
// y[n, 0, qd, qh, qw] = sum over co of that max.
//
// Two kernels: one thread per (image, output channel, pooled output) takes
// the max into the workspace, then one thread per output sums the channels
// in order co = 0, 1, ... (the order of the definition, so the sum is the
// same float whatever the grid). Not one thread per output doing all 64
// channels: at KernelBench's size that is 16000 threads, 125 blocks for 132
// SMs, and 14 million loads per thread with no barrier, more than interpret
// mode's counters can hold (docs/interpret-mode.md); per channel it is 64
// times the threads and 216 thousand loads each.
#include <cmath>
#include <cstdint>

#include "common/conv_axes.cuh"
#include "common/transposed_taps.cuh"
#include "kernelgate/candidate.hpp"
#include "kernelgate/cuda.hpp"
#include "kernelgate/grid_stride.hpp"

namespace {

struct Shape : kg::kernels::ConvAxes {
  std::int64_t depth, height, width;           // input
  std::int64_t depth_out, height_out, width_out;  // y
  __host__ __device__ std::int64_t pooled() const { return depth_out * height_out * width_out; }
};

__device__ float conv_transpose_at(const Shape& s, const float* __restrict__ x,
                                   const float* __restrict__ weight, float bias, std::int64_t n,
                                   std::int64_t co, std::int64_t od, std::int64_t oh,
                                   std::int64_t ow) {
  float sum = 0.0f;
  for (std::int64_t ci = 0; ci < s.in_channels; ++ci)
    for (std::int64_t kd = 0; kd < s.kernel; ++kd) {
      const std::int64_t id = kg::kernels::transposed_source(od, kd, s.stride, s.padding, s.depth);
      if (id < 0) continue;
      kg::kernels::for_each_transposed_tap(s, oh, ow, [&](std::int64_t ih, std::int64_t kh, std::int64_t iw,
                                                          std::int64_t kw) {
        sum += x[(((n * s.in_channels + ci) * s.depth + id) * s.height + ih) * s.width + iw] *
               weight[(((ci * s.out_channels + co) * s.kernel + kd) * s.kernel + kh) * s.kernel + kw];
      });
    }
  return sum + bias;
}

// The extent of the pooled output along one dimension of the input: the
// transposed convolution's extent, floored to whole 6-wide pool blocks.
std::int64_t pooled_extent(std::int64_t input, const kg::Axes& axes) {
  const std::int64_t conv = (input - 1) * axes.at("stride") - 2 * axes.at("padding") + axes.at("kernel_size");
  return conv / 6;
}

// Workspace: the max of every (image, output channel, pooled output).
std::size_t workspace_bytes(const kg::Axes& axes) {
  const std::int64_t pooled =
      pooled_extent(axes.at("depth"), axes) * pooled_extent(axes.at("height"), axes) *
      pooled_extent(axes.at("width"), axes);
  return static_cast<std::size_t>(axes.at("batch_size") * axes.at("out_channels") * pooled) * sizeof(float);
}

// channel_max[(n * out_channels + co) * pooled + q] = max of the conv outputs of pooled output q.
__global__ void conv_transpose3d_max_max_direct(Shape s, const float* __restrict__ x,
                                                const float* __restrict__ weight,
                                                const float* __restrict__ bias,
                                                float* __restrict__ channel_max) {
  for (const std::int64_t index : kg::grid_stride(s.batch * s.out_channels * s.pooled())) {
    const auto [n, co, qd, qh, qw] =
        kg::unravel(index, s.batch, s.out_channels, s.depth_out, s.height_out, s.width_out);
    float block_max = -INFINITY;
    // Not unrolled: sm_90a's ptxas keeps these loops rolled anyway (the same
    // registers either way), but fully unrolled, its 216 inlined
    // convolutions take sm_100a's ptxas over a minute to compile.
#pragma unroll 1
    for (std::int64_t od = 6 * qd; od < 6 * qd + 6; ++od)
#pragma unroll 1
      for (std::int64_t oh = 6 * qh; oh < 6 * qh + 6; ++oh)
        for (std::int64_t ow = 6 * qw; ow < 6 * qw + 6; ++ow)
          block_max = fmaxf(block_max, conv_transpose_at(s, x, weight, bias[co], n, co, od, oh, ow));
    channel_max[index] = block_max;
  }
}

// y[n * pooled + q] = sum over co of channel_max, in channel order.
__global__ void channel_sum_direct(Shape s, const float* __restrict__ channel_max, float* __restrict__ y) {
  const std::int64_t pooled = s.pooled();
  for (const std::int64_t index : kg::grid_stride(s.batch * pooled)) {
    const auto [n, q] = kg::unravel(index, s.batch, pooled);
    float channel_sum = 0.0f;
    for (std::int64_t co = 0; co < s.out_channels; ++co)
      channel_sum += channel_max[(n * s.out_channels + co) * pooled + q];
    y[index] = channel_sum;
  }
}

void launch(const kg::LaunchArgs& args) {
  Shape s{};
  kg::kernels::read_conv_axes(args, s);
  s.depth = args.axis("depth");
  s.height = args.axis("height");
  s.width = args.axis("width");
  s.depth_out = args.output_shape.at(2);  // the suite's shape formula, not a copy of it
  s.height_out = args.output_shape.at(3);
  s.width_out = args.output_shape.at(4);
  const std::int64_t maxima = s.batch * s.out_channels * s.pooled();
  float* channel_max = args.workspace_floats(maxima, "channel maxima of the suite's output shape");
  constexpr unsigned kThreads = 128;
  kg::launch_grid_stride(conv_transpose3d_max_max_direct, maxima, kThreads, args.stream, s, args.in("x"),
                         args.in("weight"), args.in("bias"), channel_max);
  kg::launch_grid_stride(channel_sum_direct, s.batch * s.pooled(), kThreads, args.stream, s,
                         static_cast<const float*>(channel_max), args.output);
}

KG_REGISTER_CANDIDATE({
    .precision = "fp32",
    .summary = "ConvTranspose3d + two max pools from the definition, one thread per image, "
               "channel and output, then the channel sum, FP32",
    .workspace_bytes = workspace_bytes,
    .launch = launch,
});

}  // namespace
