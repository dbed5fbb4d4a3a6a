#pragma once
// One output element of the depthwise-separable convolution straight from its
// definition (direct_fp32.cu); the adversarial candidates of the tests compute
// their honest answers with the same code, so they differ from an honest
// kernel only in their misbehaviour.
//
// mid[n, c, h, w] = sum over kh, kw of
//   x[n, c, h * stride - padding + kh * dilation, w * stride - padding + kw * dilation]
//   * depthwise_weight[c, 0, kh, kw]     (zero outside the input)
// y[n, co, h, w] = sum over c of pointwise_weight[co, c, 0, 0] * mid[n, c, h, w]
#include <cstdint>

#include "common/conv_axes.cuh"
#include "common/window_taps.cuh"
#include "kernelgate/candidate.hpp"
#include "kernelgate/cuda.hpp"
#include "kernelgate/grid_stride.hpp"

namespace kg::l1_086 {

struct DirectShape : kg::kernels::ConvAxes, kg::kernels::ConvPlanes {
  std::int64_t dilation;
  __host__ __device__ std::int64_t total() const { return batch * out_channels * height_out * width_out; }
};

inline DirectShape direct_shape(const LaunchArgs& args) {
  DirectShape s{};
  kg::kernels::read_conv_axes(args, s);
  kg::kernels::read_conv_planes(args, s);
  s.dilation = args.axis("dilation");
  return s;
}

// y at flat (NCHW) index `index`, in FP32.
inline __device__ float direct_element(const DirectShape& s, const float* __restrict__ x,
                                       const float* __restrict__ depthwise, const float* __restrict__ pointwise,
                                       std::int64_t index) {
  const auto [n, co, oh, ow] = kg::unravel(index, s.batch, s.out_channels, s.height_out, s.width_out);
  const kg::kernels::Taps rows = kg::kernels::taps_inside(oh, s.stride, s.padding, s.dilation, s.kernel, s.height);
  const kg::kernels::Taps cols = kg::kernels::taps_inside(ow, s.stride, s.padding, s.dilation, s.kernel, s.width);
  float sum = 0.0f;
  for (std::int64_t c = 0; c < s.in_channels; ++c) {
    float mid = 0.0f;
    for (std::int64_t kh = rows.first; kh < rows.last; ++kh)
      for (std::int64_t kw = cols.first; kw < cols.last; ++kw)
        mid += x[((n * s.in_channels + c) * s.height + rows.position(kh, s.dilation)) * s.width +
                 cols.position(kw, s.dilation)] *
               depthwise[(c * s.kernel + kh) * s.kernel + kw];
    sum += pointwise[co * s.in_channels + c] * mid;
  }
  return sum;
}

}  // namespace kg::l1_086
