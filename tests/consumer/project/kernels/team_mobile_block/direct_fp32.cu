// A team's own candidate, built outside kernelgate's tree against the
// installed headers only (kernelgate/candidate.hpp, kernelgate/cuda.hpp).
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

namespace {

struct Geometry {
  std::int64_t batch, channels, filters, taps, stride, pad, dilation;
  std::int64_t rows, cols, out_rows, out_cols;
};

__global__ void mobile_block(Geometry g, const float* __restrict__ x, const float* __restrict__ depthwise,
                             const float* __restrict__ pointwise, float* __restrict__ y) {
  const std::int64_t outputs = g.batch * g.filters * g.out_rows * g.out_cols;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < outputs; e += step) {
    const std::int64_t q = e % g.out_cols;
    const std::int64_t r = (e / g.out_cols) % g.out_rows;
    const std::int64_t o = (e / (g.out_cols * g.out_rows)) % g.filters;
    const std::int64_t n = e / (g.out_cols * g.out_rows * g.filters);
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
  Geometry g{};
  g.batch = args.axis("batch");
  g.channels = args.axis("in_channels");
  g.filters = args.axis("out_channels");
  g.taps = args.axis("kernel_size");
  g.stride = args.axis("stride");
  g.pad = args.axis("padding");
  g.dilation = args.axis("dilation");
  g.rows = args.axis("height");
  g.cols = args.axis("width");
  g.out_rows = args.output_shape.at(2);
  g.out_cols = args.output_shape.at(3);
  constexpr std::int64_t kThreads = 128;
  // Enough blocks for one element per thread, capped so the grid stays legal;
  // the loop above strides over whatever the cap leaves.
  const std::int64_t outputs = g.batch * g.filters * g.out_rows * g.out_cols;
  const std::int64_t wanted = (outputs + kThreads - 1) / kThreads;
  const unsigned blocks = static_cast<unsigned>(wanted < 65535 ? (wanted > 0 ? wanted : 1) : 65535);
  kg::launch(mobile_block, dim3(blocks), dim3(static_cast<unsigned>(kThreads)), 0, args.stream, g, args.in("x"),
             args.in("depthwise_weight"), args.in("pointwise_weight"), args.output);
}

KG_REGISTER_CANDIDATE({
    .precision = "fp32",
    .summary = "depthwise then pointwise convolution, one thread per output element, FP32",
    .launch = launch,
});

}  // namespace
