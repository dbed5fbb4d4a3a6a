#pragma once
// Grid sizing for the direct candidates' grid-stride loops: enough blocks to
// give every element a thread, capped so the grid stays small for huge outputs
// (the loop covers the rest).
#include <algorithm>
#include <cstdint>

namespace kg::kernels {

inline unsigned grid_stride_blocks(std::int64_t elements, unsigned threads_per_block) {
  const std::int64_t wanted = (elements + threads_per_block - 1) / threads_per_block;
  return static_cast<unsigned>(std::clamp<std::int64_t>(wanted, 1, std::int64_t{1} << 20));
}

}  // namespace kg::kernels
