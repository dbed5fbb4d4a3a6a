#pragma once
// One thread per element, for a candidate's simple kernels, in both modes
// (kernelgate/cuda.hpp): the grid-stride loop over a flat range, the
// coordinates of a flat row-major index, and the grid that covers the range
// with the launch over it.
//
//   __global__ void scale(std::int64_t total, const float* x, float* y) {
//     for (const std::int64_t index : kg::grid_stride(total)) y[index] = 2.0f * x[index];
//   }
//   kg::launch_grid_stride(scale, total, 256, stream, total, x, y);
//
//   const auto [n, c, h, w] = kg::unravel(index, batch, channels, height, width);
//
// The device side is plain structs and functions marked __device__ (the
// loop) or __host__ __device__ (unravel), none of them constexpr, so nvcc
// needs no --expt-relaxed-constexpr for them.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernelgate/cuda.hpp"

namespace kg {

// for (const std::int64_t index : kg::grid_stride(total)): this thread's
// indices in [0, total), from its global index along x in steps of the
// grid's threads along x, so any grid covers the range.
struct GridStrideEnd {
  std::int64_t total;
};

struct GridStrideIterator {
  std::int64_t index, step;
  __device__ __forceinline__ std::int64_t operator*() const { return index; }
  __device__ __forceinline__ GridStrideIterator& operator++() {
    index += step;
    return *this;
  }
  __device__ __forceinline__ bool operator!=(GridStrideEnd end) const { return index < end.total; }
};

struct GridStride {
  std::int64_t total;
  __device__ __forceinline__ GridStrideIterator begin() const {
    return {static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x,
            static_cast<std::int64_t>(gridDim.x) * blockDim.x};
  }
  __device__ __forceinline__ GridStrideEnd end() const { return {total}; }
};

__device__ __forceinline__ GridStride grid_stride(std::int64_t total) { return {total}; }

// The coordinates of a flat row-major index, outermost first; taken apart
// with a structured binding (the tuple protocol, below).
template <typename Int, std::size_t kRank>
struct Coordinates {
  Int at[kRank];
  template <std::size_t kAxis>
  __host__ __device__ __forceinline__ Int get() const {
    return at[kAxis];
  }
};

// const auto [n, c, h, w] = kg::unravel(index, batch, channels, height, width):
// the coordinates of `index` in a row-major array of that shape, in the
// index's own integer type. The outermost extent is not used (that
// coordinate is the index over the inner extents' product); it is given so
// that the call reads as the shape.
// The index must lie in the shape, and so be non-negative. Each coordinate
// is taken from the whole index (index / stride % extent), not from what is
// left after the inner ones: the chain of dividing the index down kept up to
// six more registers live in the direct convolution kernels.
template <typename Int, typename... Extents>
__host__ __device__ __forceinline__ Coordinates<Int, sizeof...(Extents)> unravel(Int index, Extents... extents) {
  static_assert(std::is_integral_v<Int> && sizeof...(Extents) > 0, "kg::unravel: an integer index and a shape");
  constexpr std::size_t kRank = sizeof...(Extents);
  const Int extent[kRank] = {static_cast<Int>(extents)...};
  Coordinates<Int, kRank> coordinates{};
  Int stride = 1;  // of the axis, in elements
  for (std::size_t axis = kRank - 1; axis > 0; --axis) {
    coordinates.at[axis] = index / stride % extent[axis];
    stride *= extent[axis];
  }
  coordinates.at[0] = index / stride;
  return coordinates;
}

// Host side: blocks of `threads_per_block` for a grid-stride loop over
// `elements`, enough to give every element a thread, capped so the grid
// stays small for huge ranges (the loop covers the rest).
inline unsigned grid_stride_blocks(std::int64_t elements, unsigned threads_per_block) {
  const std::int64_t wanted = (elements + threads_per_block - 1) / threads_per_block;
  return static_cast<unsigned>(std::clamp<std::int64_t>(wanted, 1, std::int64_t{1} << 20));
}

// kg::launch_grid_stride(kernel, total, threads_per_block, stream, args...):
// kg::launch of a kernel whose loop is kg::grid_stride(total), on
// grid_stride_blocks(total, threads_per_block) blocks of that many threads,
// without dynamic shared memory. Only where kg::launch is (nvcc and interpret
// mode; kernelgate/cuda.hpp).
#if defined(KG_INTERPRET) || defined(__CUDACC__)
template <typename... KernelArgs, typename... Args>
void launch_grid_stride(void (*kernel)(KernelArgs...), std::int64_t total, unsigned threads_per_block,
                        cudaStream_t stream, Args&&... args) {
  launch(kernel, dim3(grid_stride_blocks(total, threads_per_block)), dim3(threads_per_block), 0, stream,
         std::forward<Args>(args)...);
}
#endif

}  // namespace kg

namespace std {
template <typename Int, std::size_t kRank>
struct tuple_size<kg::Coordinates<Int, kRank>> : std::integral_constant<std::size_t, kRank> {};
template <std::size_t kAxis, typename Int, std::size_t kRank>
struct tuple_element<kAxis, kg::Coordinates<Int, kRank>> {
  using type = Int;
};
}  // namespace std
