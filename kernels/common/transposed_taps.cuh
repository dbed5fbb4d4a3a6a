#pragma once
// Which input a transposed convolution's output reads through one tap. The
// convolution scatters input i to the outputs i * stride - padding + k, one
// per tap k; a direct candidate gathers instead, one output at a time, and
// output o then reads through tap k the input (o + padding - k) / stride,
// where that division is exact and lands inside the input.
#include <cstdint>

#include "kernelgate/cuda.hpp"

namespace kg::kernels {

// The input position that output `out` reads through tap `tap` along one
// dimension of `extent` inputs, or -1 where it reads none.
__host__ __device__ inline std::int64_t transposed_source(std::int64_t out, std::int64_t tap, std::int64_t stride,
                                                          std::int64_t padding, std::int64_t extent) {
  const std::int64_t scaled = out + padding - tap;  // = input * stride
  if (scaled < 0 || scaled % stride != 0 || scaled / stride >= extent) return -1;
  return scaled / stride;
}

}  // namespace kg::kernels
