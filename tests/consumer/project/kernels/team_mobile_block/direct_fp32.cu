// A team's own candidate, built outside kernelgate's tree against the
// installed headers only (kernelgate/candidate.hpp, kernelgate/cuda.hpp,
// kernelgate/grid_stride.hpp).
//
// The block: a 3x3-style depthwise convolution (one filter per channel) whose
// result is mixed across channels by a 1x1 convolution. Each thread owns one
// output element y[n, o, r, q] and computes, for every input channel c, the
// depthwise value at (r, q) before weighting it by pointwise[o, c], and keeps
// the positive part (the block's ReLU):
//   y[n, o, r, q] = max(0, sum_c pointwise[o, c] *
//                          sum_{i, j} depthwise[c, i, j] * x[n, c, r*S - P + i*D, q*S - P + j*D])
// with taps outside the input counted as zero.
#include <cstdint>

#include "kernelgate/candidate.hpp"
#include "kernelgate/cuda.hpp"
#include "kernelgate/grid_stride.hpp"

namespace {

struct Geometry {
  std::int64_t batch, channels, filters, taps, stride, pad, dilation;
  std::int64_t rows, cols, out_rows, out_cols;
  __host__ __device__ std::int64_t outputs() const { return batch * filters * out_rows * out_cols; }
};

__global__ void mobile_block(Geometry g, const float* __restrict__ x, const float* __restrict__ depthwise,
                             const float* __restrict__ pointwise, float* __restrict__ y) {
  for (const std::int64_t e : kg::grid_stride(g.outputs())) {
    const auto [n, o, r, q] = kg::unravel(e, g.batch, g.filters, g.out_rows, g.out_cols);
    float acc = 0.0f;
    for (std::int64_t c = 0; c < g.channels; ++c) {
      const float* plane = x + (n * g.channels + c) * g.rows * g.cols;
      const float* filter = depthwise + c * g.taps * g.taps;
      float spatial = 0.0f;
      for (std::int64_t i = 0; i < g.taps; ++i) {
        const std::int64_t row = r * g.stride - g.pad + i * g.dilation;
        if (row < 0 || row >= g.rows) continue;
        for (std::int64_t j = 0; j < g.taps; ++j) {
          const std::int64_t col = q * g.stride - g.pad + j * g.dilation;
          if (col >= 0 && col < g.cols) spatial += plane[row * g.cols + col] * filter[i * g.taps + j];
        }
      }
      acc += pointwise[o * g.channels + c] * spatial;
    }
    y[e] = fmaxf(acc, 0.0f);
  }
}

void launch(const kg::LaunchArgs& args) {
  const Geometry g{.batch = args.axis("batch"), .channels = args.axis("in_channels"),
                   .filters = args.axis("out_channels"), .taps = args.axis("kernel_size"),
                   .stride = args.axis("stride"), .pad = args.axis("padding"), .dilation = args.axis("dilation"),
                   .rows = args.axis("height"), .cols = args.axis("width"),
                   .out_rows = args.output_shape.at(2), .out_cols = args.output_shape.at(3)};
  // Enough blocks for one element per thread, capped so the grid stays
  // small; the loop above strides over whatever the cap leaves.
  kg::launch_grid_stride(mobile_block, g.outputs(), 128, args.stream, g, args.in("x"), args.in("depthwise_weight"),
                         args.in("pointwise_weight"), args.output);
}

KG_REGISTER_CANDIDATE({
    .precision = "fp32",
    .summary = "depthwise then pointwise convolution, one thread per output element, FP32",
    .launch = launch,
});

}  // namespace
