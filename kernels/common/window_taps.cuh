#pragma once
// The taps of a convolution window, along one dimension, that read inside
// the input. Tap i of output position o reads input position
// o * stride - padding + i * dilation; a tap outside [0, extent) reads the
// zero padding and adds nothing. Those inside are one contiguous range, so a
// direct candidate loops over exactly them, in the same order, instead of
// testing every tap.
#include <cstdint>

#include "kernelgate/cuda.hpp"

namespace kg::kernels {

struct Taps {
  std::int64_t first, last;  // the taps first .. last - 1 (none when last <= first)
  std::int64_t origin;       // the input position tap 0 reads, inside the input or not
  __host__ __device__ std::int64_t position(std::int64_t tap, std::int64_t dilation) const {
    return origin + tap * dilation;
  }
};

__host__ __device__ inline Taps taps_inside(std::int64_t out, std::int64_t stride, std::int64_t padding,
                                            std::int64_t dilation, std::int64_t kernel, std::int64_t extent) {
  const std::int64_t origin = out * stride - padding;
  const std::int64_t first = origin >= 0 ? 0 : (-origin + dilation - 1) / dilation;  // the first at 0 or later
  const std::int64_t last = origin >= extent ? 0 : (extent - 1 - origin) / dilation + 1;  // past the last inside
  return {first, last < kernel ? last : kernel, origin};
}

}  // namespace kg::kernels
