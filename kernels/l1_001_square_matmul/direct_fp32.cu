// The always-runnable baseline: C = A B from the definition, one thread per
// element of C, FP32, summed over k in increasing order (the reference's
// order). Slow on purpose: it is the obviously correct candidate faster ones
// are compared with. Consecutive threads take consecutive columns, so a warp
// reads one element of A (broadcast) and 32 adjacent elements of B per step.
#include <cstdint>

#include "kernelgate/candidate.hpp"
#include "kernelgate/cuda.hpp"
#include "kernelgate/grid_stride.hpp"

namespace {

__global__ void matmul_direct(std::int64_t n, const float* __restrict__ a, const float* __restrict__ b,
                              float* __restrict__ c) {
  for (const std::int64_t index : kg::grid_stride(n * n)) {
    const auto [row, column] = kg::unravel(index, n, n);
    float sum = 0.0f;
    for (std::int64_t k = 0; k < n; ++k) sum += a[row * n + k] * b[k * n + column];
    c[index] = sum;
  }
}

void launch(const kg::LaunchArgs& args) {
  const std::int64_t n = args.axis("N");
  kg::launch_grid_stride(matmul_direct, n * n, 256, args.stream, n, args.in("A"), args.in("B"), args.output);
}

KG_REGISTER_CANDIDATE({
    .precision = "fp32",
    .summary = "matmul from the definition, one thread per element of C, FP32",
    .launch = launch,
});

}  // namespace
