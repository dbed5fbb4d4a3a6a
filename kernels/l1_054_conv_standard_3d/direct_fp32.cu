// The always-runnable baseline: Conv3d straight from the definition, one
// thread per output element, FP32, every stride, padding, dilation and group
// count the module accepts. Slow on purpose: it is the obviously correct
// candidate faster ones are compared with.
//
// The input's spatial dimensions are (depth, width, height), in KernelBench's
// order; the kernel runs over them as dimensions a, b, c:
// y[n, o, a, b, c] = sum over ch < C/G, i, j, k of
//   x[n, g*C/G + ch, a*S - P + i*D, b*S - P + j*D, c*S - P + k*D] * weight[o, ch, i, j, k]
// with g = o / (O/G) and taps outside the input counted as zero.
#include <cstdint>

#include "common/conv_axes.cuh"
#include "kernelgate/candidate.hpp"
#include "kernelgate/cuda.hpp"
#include "kernelgate/grid_stride.hpp"

namespace {

struct Shape : kg::kernels::GroupedConvAxes {
  std::int64_t extent[3];      // input: depth, width, height
  std::int64_t extent_out[3];  // y
  __host__ __device__ std::int64_t total() const {
    return batch * out_channels * extent_out[0] * extent_out[1] * extent_out[2];
  }
};

__global__ void conv3d_direct(Shape s, const float* __restrict__ x, const float* __restrict__ weight,
                              float* __restrict__ y) {
  const std::int64_t spatial_in = s.extent[0] * s.extent[1] * s.extent[2];
  const std::int64_t group_in = s.in_channels / s.groups, group_out = s.out_channels / s.groups;
  const std::int64_t taps = s.kernel * s.kernel * s.kernel;
  for (const std::int64_t index : kg::grid_stride(s.total())) {
    const auto [n, o, a_out, b_out, c_out] =
        kg::unravel(index, s.batch, s.out_channels, s.extent_out[0], s.extent_out[1], s.extent_out[2]);
    const std::int64_t first_channel = (o / group_out) * group_in;
    float sum = 0.0f;
    for (std::int64_t ch = 0; ch < group_in; ++ch) {
      const float* volume = x + (n * s.in_channels + first_channel + ch) * spatial_in;
      const float* filter = weight + (o * group_in + ch) * taps;
      for (std::int64_t i = 0; i < s.kernel; ++i) {
        const std::int64_t a = a_out * s.stride - s.padding + i * s.dilation;
        if (a < 0 || a >= s.extent[0]) continue;
        for (std::int64_t j = 0; j < s.kernel; ++j) {
          const std::int64_t b = b_out * s.stride - s.padding + j * s.dilation;
          if (b < 0 || b >= s.extent[1]) continue;
          for (std::int64_t k = 0; k < s.kernel; ++k) {
            const std::int64_t c = c_out * s.stride - s.padding + k * s.dilation;
            if (c >= 0 && c < s.extent[2])
              sum += volume[(a * s.extent[1] + b) * s.extent[2] + c] * filter[(i * s.kernel + j) * s.kernel + k];
          }
        }
      }
    }
    y[index] = sum;
  }
}

void launch(const kg::LaunchArgs& args) {
  Shape s{};
  kg::kernels::read_grouped_conv_axes(args, s);
  s.extent[0] = args.axis("depth");
  s.extent[1] = args.axis("width");
  s.extent[2] = args.axis("height");
  for (int d = 0; d < 3; ++d) s.extent_out[d] = args.output_shape.at(2 + d);  // the suite's formula
  kg::launch_grid_stride(conv3d_direct, s.total(), 256, args.stream, s, args.in("x"), args.in("weight"), args.output);
}

KG_REGISTER_CANDIDATE({
    .precision = "fp32",
    .summary = "Conv3d from the definition, one thread per output element, FP32",
    .launch = launch,
});

}  // namespace
