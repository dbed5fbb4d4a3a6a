// The always-runnable baseline: Conv2d straight from the definition, one
// thread per output element, FP32, every stride, padding, dilation and group
// count the module accepts. Slow on purpose: it is the obviously correct
// candidate faster ones are compared with.
//
// y[n, o, r, q] = sum over c < C/G, i, j of
//   x[n, g*C/G + c, r*S - P + i*D, q*S - P + j*D] * weight[o, c, i, j]
// with g = o / (O/G), taps outside the input counted as zero, summed with the
// channel outermost and the taps in row-major order (the reference's order).
#include <cstdint>

#include "common/conv_axes.cuh"
#include "common/window_taps.cuh"
#include "kernelgate/candidate.hpp"
#include "kernelgate/cuda.hpp"
#include "kernelgate/grid_stride.hpp"

namespace {

struct Shape : kg::kernels::GroupedConvAxes, kg::kernels::ConvPlanes {
  __host__ __device__ std::int64_t total() const { return batch * out_channels * height_out * width_out; }
};

__global__ void conv2d_direct(Shape s, const float* __restrict__ x, const float* __restrict__ weight,
                              float* __restrict__ y) {
  const std::int64_t group_in = s.in_channels / s.groups, group_out = s.out_channels / s.groups;
  for (const std::int64_t index : kg::grid_stride(s.total())) {
    const auto [n, o, r, q] = kg::unravel(index, s.batch, s.out_channels, s.height_out, s.width_out);
    const std::int64_t first_channel = (o / group_out) * group_in;
    const kg::kernels::Taps rows = kg::kernels::taps_inside(r, s.stride, s.padding, s.dilation, s.kernel, s.height);
    const kg::kernels::Taps cols = kg::kernels::taps_inside(q, s.stride, s.padding, s.dilation, s.kernel, s.width);
    float sum = 0.0f;
    for (std::int64_t c = 0; c < group_in; ++c) {
      const float* plane = x + (n * s.in_channels + first_channel + c) * s.height * s.width;
      const float* filter = weight + (o * group_in + c) * s.kernel * s.kernel;
      for (std::int64_t i = rows.first; i < rows.last; ++i)
        for (std::int64_t j = cols.first; j < cols.last; ++j)
          sum += plane[rows.position(i, s.dilation) * s.width + cols.position(j, s.dilation)] *
                 filter[i * s.kernel + j];
    }
    y[index] = sum;
  }
}

void launch(const kg::LaunchArgs& args) {
  Shape s{};
  kg::kernels::read_grouped_conv_axes(args, s);
  kg::kernels::read_conv_planes(args, s);
  kg::launch_grid_stride(conv2d_direct, s.total(), 256, args.stream, s, args.in("x"), args.in("weight"), args.output);
}

KG_REGISTER_CANDIDATE({
    .precision = "fp32",
    .summary = "Conv2d from the definition, one thread per output element, FP32",
    .launch = launch,
});

}  // namespace
