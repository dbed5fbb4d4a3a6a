// The candidate of the example workload imported from a team's own module
// (tests/importer/problems/level1/901_scaled_log_softmax.py, imported into
// suites/examples/): log_softmax(x * 0.5) along each row. One thread per
// row, three passes over it in FP32 in the reference's order: the maximum,
// the sum of exponentials shifted by it, then each element.
#include <cmath>
#include <cstdint>

#include "kernelgate/candidate.hpp"
#include "kernelgate/cuda.hpp"
#include "kernelgate/grid_stride.hpp"

namespace {

// The module's own scale (its Model's second argument), an op value of the suite.
constexpr float kScale = 0.5f;

__global__ void scaled_log_softmax(std::int64_t rows, std::int64_t columns, const float* __restrict__ x,
                                   float* __restrict__ y) {
  for (const std::int64_t row : kg::grid_stride(rows)) {
    const float* in = x + row * columns;
    float* out = y + row * columns;
    float top = -INFINITY;
    for (std::int64_t c = 0; c < columns; ++c) top = fmaxf(top, in[c] * kScale);
    float sum = 0.0f;
    for (std::int64_t c = 0; c < columns; ++c) sum += expf(in[c] * kScale - top);
    const float log_sum = logf(sum);
    for (std::int64_t c = 0; c < columns; ++c) out[c] = in[c] * kScale - top - log_sum;
  }
}

void launch(const kg::LaunchArgs& args) {
  const std::int64_t rows = args.axis("batch_size");
  kg::launch_grid_stride(scaled_log_softmax, rows, 128, args.stream, rows, args.axis("features"), args.in("x"),
                         args.output);
}

KG_REGISTER_CANDIDATE({
    .precision = "fp32",
    .summary = "log_softmax of the scaled row from the definition, one thread per row, FP32",
    .launch = launch,
});

}  // namespace
