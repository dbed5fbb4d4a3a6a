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
//   the PTX wrappers of kernelgate/ptx.hpp.
// Never raw inline PTX, never `#if __CUDA_ARCH__`: interpret mode would take
// the fallback silently. KG_INTERPRET is the feature macro for the rare case.

#if defined(KG_INTERPRET)
#include "kernelgate/interpret/runtime.hpp"
#else
#include <cuda_runtime.h>

#include <string>

#include "kernelgate/error.hpp"

#define KG_DYNAMIC_SMEM(type, name) extern __shared__ __align__(16) type name[]

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

template <typename... KernelArgs>
void set_max_dynamic_smem(void (*kernel)(KernelArgs...), std::size_t bytes) {
  cudaError_t status = cudaFuncSetAttribute(
      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  if (status != cudaSuccess)
    throw Error(std::string("cudaFuncSetAttribute(MaxDynamicSharedMemorySize) failed: ") +
                cudaGetErrorString(status));
}

}  // namespace kg
#endif  // __CUDACC__
#endif
