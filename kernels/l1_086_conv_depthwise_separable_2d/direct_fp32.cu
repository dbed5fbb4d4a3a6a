// The always-runnable baseline: depthwise Conv2d then pointwise Conv2d
// straight from the definition, one thread per output element, FP32, every
// axis value the module accepts (stride, padding, dilation, kernel size).
// Each thread recomputes the depthwise values it needs: slow on purpose, it is
// the obviously correct candidate the fast ones are compared with.
//
// mid[n, c, h, w] = sum over kh, kw of
//   x[n, c, h * stride - padding + kh * dilation, w * stride - padding + kw * dilation]
//   * depthwise_weight[c, 0, kh, kw]     (zero outside the input)
// y[n, co, h, w] = sum over c of pointwise_weight[co, c, 0, 0] * mid[n, c, h, w]
#include <algorithm>
#include <cstdint>

#include "common/grid_stride.cuh"
#include "kernelgate/candidate.hpp"
#include "kernelgate/cuda.hpp"

namespace {

struct Shape {
  std::int64_t batch, in_channels, out_channels, kernel, stride, padding, dilation;
  std::int64_t height, width, height_out, width_out;
};

__global__ void depthwise_separable_direct(Shape s, const float* __restrict__ x,
                                           const float* __restrict__ depthwise,
                                           const float* __restrict__ pointwise,
                                           float* __restrict__ y) {
  const std::int64_t total = s.batch * s.out_channels * s.height_out * s.width_out;
  for (std::int64_t index = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; index < total;
       index += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t ow = index % s.width_out;
    const std::int64_t oh = (index / s.width_out) % s.height_out;
    const std::int64_t co = (index / (s.width_out * s.height_out)) % s.out_channels;
    const std::int64_t n = index / (s.width_out * s.height_out * s.out_channels);
    float sum = 0.0f;
    for (std::int64_t c = 0; c < s.in_channels; ++c) {
      float mid = 0.0f;
      for (std::int64_t kh = 0; kh < s.kernel; ++kh) {
        const std::int64_t ih = oh * s.stride - s.padding + kh * s.dilation;
        if (ih < 0 || ih >= s.height) continue;
        for (std::int64_t kw = 0; kw < s.kernel; ++kw) {
          const std::int64_t iw = ow * s.stride - s.padding + kw * s.dilation;
          if (iw < 0 || iw >= s.width) continue;
          mid += x[((n * s.in_channels + c) * s.height + ih) * s.width + iw] *
                 depthwise[(c * s.kernel + kh) * s.kernel + kw];
        }
      }
      sum += pointwise[co * s.in_channels + c] * mid;
    }
    y[index] = sum;
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
  s.dilation = args.axis("dilation");
  s.height = args.axis("height");
  s.width = args.axis("width");
  s.height_out = args.output_shape.at(2);  // the suite's shape formula, not a copy of it
  s.width_out = args.output_shape.at(3);
  const std::int64_t total = s.batch * s.out_channels * s.height_out * s.width_out;
  constexpr unsigned kThreads = 256;
  const unsigned blocks = kg::kernels::grid_stride_blocks(total, kThreads);
  kg::launch(depthwise_separable_direct, dim3(blocks), dim3(kThreads), 0, args.stream, s,
             args.in("x"), args.in("depthwise_weight"), args.in("pointwise_weight"), args.output);
}

KG_REGISTER_CANDIDATE({
    .workload = "l1_086_conv_depthwise_separable_2d",
    .id = "direct_fp32",
    .precision = "fp32",
    .summary = "depthwise then pointwise Conv2d from the definition, one thread per output "
               "element, FP32",
    .launch = launch,
});

}  // namespace
