#pragma once
// Which input a transposed convolution's output reads through one tap, and
// the taps of one plane through which it reads any. The convolution scatters
// input i to the outputs i * stride - padding + k, one per tap k; a direct
// candidate gathers instead, one output at a time, and output o then reads
// through tap k the input (o + padding - k) / stride, where that division is
// exact and lands inside the input.
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

// Calls visit(ih, kh, iw, kw) for each tap (kh, kw) of a square kernel
// through which output (oh, ow) of a transposed convolution reads an input
// (ih, iw) of one plane, kh outer and kw inner. `s` has the kernel's
// `kernel`, `stride` and `padding` and the plane's `height` and `width`.
template <class Shape, class Visit>
__device__ __forceinline__ void for_each_transposed_tap(const Shape& s, std::int64_t oh, std::int64_t ow, Visit visit) {
  for (std::int64_t kh = 0; kh < s.kernel; ++kh) {
    const std::int64_t ih = transposed_source(oh, kh, s.stride, s.padding, s.height);
    if (ih < 0) continue;
    for (std::int64_t kw = 0; kw < s.kernel; ++kw) {
      const std::int64_t iw = transposed_source(ow, kw, s.stride, s.padding, s.width);
      if (iw < 0) continue;
      visit(ih, kh, iw, kw);
    }
  }
}

}  // namespace kg::kernels
