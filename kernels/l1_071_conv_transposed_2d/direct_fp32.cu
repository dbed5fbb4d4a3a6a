// The always-runnable baseline: ConvTranspose2d straight from its definition,
// one thread per output element, FP32 arithmetic, every axis value the module
// accepts (stride, padding, output_padding, groups). Slow on purpose: it is
// the obviously correct candidate the fast ones are compared with.
//
// y[n, co, oh, ow] = sum over ci of co's group, kh, kw with
//   oh = ih * stride - padding + kh and ow = iw * stride - padding + kw
// of x[n, ci, ih, iw] * weight[ci, co % out_per_group, kh, kw].
#include <cstdint>

#include "common/conv_axes.cuh"
#include "common/transposed_taps.cuh"
#include "kernelgate/candidate.hpp"
#include "kernelgate/cuda.hpp"
#include "kernelgate/grid_stride.hpp"

namespace {

struct Shape : kg::kernels::ConvAxes, kg::kernels::ConvPlanes {
  std::int64_t groups;
  __host__ __device__ std::int64_t total() const { return batch * out_channels * height_out * width_out; }
};

__global__ void conv_transpose2d_direct(Shape s, const float* __restrict__ x,
                                        const float* __restrict__ weight, float* __restrict__ y) {
  const std::int64_t in_per_group = s.in_channels / s.groups;
  const std::int64_t out_per_group = s.out_channels / s.groups;
  for (const std::int64_t index : kg::grid_stride(s.total())) {
    const auto [n, co, oh, ow] = kg::unravel(index, s.batch, s.out_channels, s.height_out, s.width_out);
    const std::int64_t group = co / out_per_group;
    const std::int64_t co_in_group = co % out_per_group;
    float sum = 0.0f;
    for (std::int64_t ci = group * in_per_group; ci < (group + 1) * in_per_group; ++ci)
      kg::kernels::for_each_transposed_tap(s, oh, ow, [&](std::int64_t ih, std::int64_t kh, std::int64_t iw,
                                                          std::int64_t kw) {
        sum += x[((n * s.in_channels + ci) * s.height + ih) * s.width + iw] *
               weight[((ci * out_per_group + co_in_group) * s.kernel + kh) * s.kernel + kw];
      });
    y[index] = sum;
  }
}

void launch(const kg::LaunchArgs& args) {
  Shape s{};
  kg::kernels::read_conv_axes(args, s);
  kg::kernels::read_conv_planes(args, s, "height_in", "width_in");
  s.groups = args.axis("groups");
  kg::launch_grid_stride(conv_transpose2d_direct, s.total(), 256, args.stream, s, args.in("x"), args.in("weight"),
                         args.output);
}

KG_REGISTER_CANDIDATE({
    .precision = "fp32",
    .summary = "ConvTranspose2d from the definition, one thread per output element, FP32",
    .launch = launch,
});

}  // namespace
