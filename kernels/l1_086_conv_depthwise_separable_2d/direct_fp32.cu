// The always-runnable baseline: depthwise Conv2d then pointwise Conv2d
// straight from the definition, one thread per output element, FP32, every
// axis value the module accepts (stride, padding, dilation, kernel size).
// Each thread recomputes the depthwise values it needs: slow on purpose, it is
// the obviously correct candidate the fast ones are compared with. The
// definition it computes, element by element, is in direct.cuh.
#include <cstdint>

#include "kernelgate/grid_stride.hpp"
#include "l1_086_conv_depthwise_separable_2d/direct.cuh"

namespace {

using kg::l1_086::DirectShape;

__global__ void depthwise_separable_direct(DirectShape s, const float* __restrict__ x,
                                           const float* __restrict__ depthwise,
                                           const float* __restrict__ pointwise,
                                           float* __restrict__ y) {
  for (const std::int64_t index : kg::grid_stride(s.total()))
    y[index] = kg::l1_086::direct_element(s, x, depthwise, pointwise, index);
}

void launch(const kg::LaunchArgs& args) {
  const DirectShape s = kg::l1_086::direct_shape(args);
  kg::launch_grid_stride(depthwise_separable_direct, s.total(), 256, args.stream, s, args.in("x"),
                         args.in("depthwise_weight"), args.in("pointwise_weight"), args.output);
}

KG_REGISTER_CANDIDATE({
    .precision = "fp32",
    .summary = "depthwise then pointwise Conv2d from the definition, one thread per output "
               "element, FP32",
    .launch = launch,
});

}  // namespace
