// The always-runnable baseline: ConvTranspose3d (with bias), MaxPool3d(2),
// MaxPool3d(3), sum over channels, straight from the definition: one thread
// per output element, FP32, every legal stride, padding and kernel size.
// Slow on purpose: it is the obviously correct candidate the fast ones are
// compared with.
//
// conv[n, co, od, oh, ow] = bias[co] + sum over ci, kd, kh, kw with
//   od = id * stride - padding + kd (likewise h, w) of
//   x[n, ci, id, ih, iw] * weight[ci, co, kd, kh, kw]
// pool2 then pool3 (both floor mode, no padding) is pool2[p] = max conv[2p..2p+1],
// pool3[q] = max pool2[3q..3q+2]: together the max over conv[6q..6q+5].
// y[n, 0, qd, qh, qw] = sum over co of that max.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "common/grid_stride.cuh"
#include "kernelgate/candidate.hpp"
#include "kernelgate/cuda.hpp"

namespace {

struct Shape {
  std::int64_t batch, in_channels, out_channels, kernel, stride, padding;
  std::int64_t depth, height, width;           // input
  std::int64_t depth_out, height_out, width_out;  // y
};

__device__ float conv_transpose_at(const Shape& s, const float* __restrict__ x,
                                   const float* __restrict__ weight, float bias, std::int64_t n,
                                   std::int64_t co, std::int64_t od, std::int64_t oh,
                                   std::int64_t ow) {
  float sum = 0.0f;
  for (std::int64_t ci = 0; ci < s.in_channels; ++ci)
    for (std::int64_t kd = 0; kd < s.kernel; ++kd) {
      const std::int64_t td = od + s.padding - kd;  // = id * stride
      if (td < 0 || td % s.stride != 0 || td / s.stride >= s.depth) continue;
      const std::int64_t id = td / s.stride;
      for (std::int64_t kh = 0; kh < s.kernel; ++kh) {
        const std::int64_t th = oh + s.padding - kh;
        if (th < 0 || th % s.stride != 0 || th / s.stride >= s.height) continue;
        const std::int64_t ih = th / s.stride;
        for (std::int64_t kw = 0; kw < s.kernel; ++kw) {
          const std::int64_t tw = ow + s.padding - kw;
          if (tw < 0 || tw % s.stride != 0 || tw / s.stride >= s.width) continue;
          const std::int64_t iw = tw / s.stride;
          sum += x[(((n * s.in_channels + ci) * s.depth + id) * s.height + ih) * s.width + iw] *
                 weight[(((ci * s.out_channels + co) * s.kernel + kd) * s.kernel + kh) * s.kernel + kw];
        }
      }
    }
  return sum + bias;
}

__global__ void conv_transpose3d_max_max_sum_direct(Shape s, const float* __restrict__ x,
                                                    const float* __restrict__ weight,
                                                    const float* __restrict__ bias,
                                                    float* __restrict__ y) {
  const std::int64_t total = s.batch * s.depth_out * s.height_out * s.width_out;
  for (std::int64_t index = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; index < total;
       index += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t qw = index % s.width_out;
    const std::int64_t qh = (index / s.width_out) % s.height_out;
    const std::int64_t qd = (index / (s.width_out * s.height_out)) % s.depth_out;
    const std::int64_t n = index / (s.width_out * s.height_out * s.depth_out);
    float channel_sum = 0.0f;
    for (std::int64_t co = 0; co < s.out_channels; ++co) {
      float block_max = -INFINITY;
      for (std::int64_t od = 6 * qd; od < 6 * qd + 6; ++od)
        for (std::int64_t oh = 6 * qh; oh < 6 * qh + 6; ++oh)
          for (std::int64_t ow = 6 * qw; ow < 6 * qw + 6; ++ow)
            block_max = fmaxf(block_max, conv_transpose_at(s, x, weight, bias[co], n, co, od, oh, ow));
      channel_sum += block_max;
    }
    y[index] = channel_sum;
  }
}

void launch(const kg::LaunchArgs& args) {
  Shape s{};
  s.batch = args.axis("batch");
  s.in_channels = args.axis("in_channels");
  s.out_channels = args.axis("out_channels");
  s.kernel = args.axis("kernel_size");
  s.stride = args.axis("stride");
  s.padding = args.axis("padding");
  s.depth = args.axis("depth");
  s.height = args.axis("height");
  s.width = args.axis("width");
  s.depth_out = args.output_shape.at(2);  // the suite's shape formula, not a copy of it
  s.height_out = args.output_shape.at(3);
  s.width_out = args.output_shape.at(4);
  const std::int64_t total = s.batch * s.depth_out * s.height_out * s.width_out;
  constexpr unsigned kThreads = 128;
  const unsigned blocks = kg::kernels::grid_stride_blocks(total, kThreads);
  kg::launch(conv_transpose3d_max_max_sum_direct, dim3(blocks), dim3(kThreads), 0, args.stream, s,
             args.in("x"), args.in("weight"), args.in("bias"), args.output);
}

KG_REGISTER_CANDIDATE({
    .workload = "l2_078_conv_transpose3d_max_max_sum",
    .id = "direct_fp32",
    .precision = "fp32",
    .summary = "ConvTranspose3d + two max pools + channel sum from the definition, one thread "
               "per output element, FP32",
    .launch = launch,
});

}  // namespace
