#pragma once
// The one header a candidate includes for CUDA. Under nvcc it is the CUDA
// runtime; in the cpu build (KG_INTERPRET) it is the interpret-mode runtime of
// harness/interpret, which runs the same kernel source on the CPU.
//
// What a candidate may use in both modes (docs/interpret-mode.md):
//   __global__ __device__ __host__ __forceinline__ __restrict__ __shared__
//   __launch_bounds__(...), threadIdx blockIdx blockDim gridDim warpSize,
//   __syncthreads (+ _count/_and/_or), __syncwarp, __shfl*_sync, __ballot_sync,
//   __any_sync, __all_sync, atomics, __threadfence, __ldg, float2/float4/int4/dim3,
//   make_*, fmaf, fmaxf, fminf, __float_as_uint and friends,
//   KG_DYNAMIC_SMEM(type, name)        dynamic shared memory, both modes
//   kg::launch(kernel, grid, block, dynamic_smem_bytes, stream, args...)
//   kg::set_max_dynamic_smem(kernel, bytes)   the opt-in above 48 KiB
//   the PTX wrappers of kernelgate/ptx.hpp,
//   kernelgate/grid_stride.hpp: kg::grid_stride(total) (a grid-stride loop),
//   kg::unravel(index, shape...), kg::grid_stride_blocks(elements, threads)
//   and kg::launch_grid_stride(kernel, total, threads, stream, args...).
// For sizing a grid or a tile to the device: kg::sm_count(),
// kg::max_dynamic_smem_per_block() (the opt-in maximum: 227 KiB on sm_90 and
// sm_100, 163 KiB on sm_80, 99 KiB on sm_89) and
// kg::max_active_blocks_per_sm(kernel, threads, dynamic_smem_bytes); 0 when
// the query fails (its error cleared, so no later check blames a launch). Interpret mode answers them only when `kernelgate model`
// sizes grids for a GPU, and 0 otherwise.
// On the GPU these and set_max_dynamic_smem ask the driver once per kernel
// and size and remember the answer, so a launch pays for no device query in
// the timed region (a candidate's child process drives one device).
// Never raw inline PTX, never `#if __CUDA_ARCH__`: interpret mode would take
// the fallback silently. KG_INTERPRET is the feature macro for the rare case.

#if defined(KG_INTERPRET)
#include "kernelgate/interpret/runtime.hpp"
#else
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "kernelgate/detail/device_query.hpp"
#include "kernelgate/error.hpp"

#define KG_DYNAMIC_SMEM(type, name) extern __shared__ __align__(16) type name[]

namespace kg::detail {
// What the driver already answered in this process, by kernel and size. The
// harness keeps it (src/device/cuda/device_query_cache.cpp, behind a lock),
// so a candidate's compile, four device passes of it, sees no container or
// lock headers. Device facts, never data. 0: not asked yet.
std::size_t remembered_dynamic_smem(const void* kernel);
void remember_dynamic_smem(const void* kernel, std::size_t bytes);
int remembered_active_blocks(const void* kernel, int threads, std::size_t dynamic_smem_bytes);
void remember_active_blocks(const void* kernel, int threads, std::size_t dynamic_smem_bytes, int blocks);
int remembered_device_attribute(cudaDeviceAttr attribute);
void remember_device_attribute(cudaDeviceAttr attribute, int value);
}  // namespace kg::detail

// The launch helpers use <<<>>>, so only nvcc sees them; host-only .cpp files
// of the gpu build include this header for cudaStream_t alone.
#if defined(__CUDACC__)
namespace kg {

// Checked launch on the given stream: a launch error throws kg::Error.
template <typename... KernelArgs, typename... Args>
void launch(void (*kernel)(KernelArgs...), dim3 grid, dim3 block, std::size_t dynamic_smem_bytes,
            cudaStream_t stream, Args&&... args) {
  kernel<<<grid, block, dynamic_smem_bytes, stream>>>(std::forward<Args>(args)...);
  cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess)
    throw Error(std::string("kernel launch failed: ") + cudaGetErrorName(status) + ": " +
                cudaGetErrorString(status));
}

namespace detail {
// Clears the error a failed query left (answer_or_zero).
inline void forget_last_error() { cudaGetLastError(); }

// An attribute of the current device, asked once and remembered; 0 when the
// query fails (and asked again next time).
inline int cached_device_attribute(cudaDeviceAttr attribute) {
  if (const int known = remembered_device_attribute(attribute); known != 0) return known;
  const int value = answer_or_zero(
      cudaSuccess,
      [attribute](int& answer) {
        int device = 0;
        const cudaError_t status = cudaGetDevice(&device);
        return status != cudaSuccess ? status : cudaDeviceGetAttribute(&answer, attribute, device);
      },
      forget_last_error);
  if (value != 0) remember_device_attribute(attribute, value);
  return value;
}
}  // namespace detail

template <typename... KernelArgs>
void set_max_dynamic_smem(void (*kernel)(KernelArgs...), std::size_t bytes) {
  const void* key = reinterpret_cast<const void*>(kernel);
  if (detail::remembered_dynamic_smem(key) >= bytes) return;
  cudaError_t status = cudaFuncSetAttribute(
      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  if (status != cudaSuccess)
    throw Error(std::string("cudaFuncSetAttribute(MaxDynamicSharedMemorySize) failed: ") +
                cudaGetErrorString(status));
  detail::remember_dynamic_smem(key, bytes);
}

// The SMs of the current device; 0 when the query fails.
inline int sm_count() { return detail::cached_device_attribute(cudaDevAttrMultiProcessorCount); }

// The most dynamic shared memory a block of the current device may opt in
// to; 0 when the query fails.
inline std::size_t max_dynamic_smem_per_block() {
  return static_cast<std::size_t>(detail::cached_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin));
}

// Blocks of `kernel` that fit on one SM at once; 0 when the query fails.
template <typename... KernelArgs>
int max_active_blocks_per_sm(void (*kernel)(KernelArgs...), int threads, std::size_t dynamic_smem_bytes) {
  const void* key = reinterpret_cast<const void*>(kernel);
  if (const int known = detail::remembered_active_blocks(key, threads, dynamic_smem_bytes); known != 0) return known;
  const int per_sm = detail::answer_or_zero(
      cudaSuccess,
      [&](int& blocks) {
        return cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, dynamic_smem_bytes);
      },
      detail::forget_last_error);
  if (per_sm > 0) detail::remember_active_blocks(key, threads, dynamic_smem_bytes, per_sm);
  return per_sm;
}

}  // namespace kg
#endif  // __CUDACC__
#endif
