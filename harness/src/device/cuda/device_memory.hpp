#pragma once
// Device-side fill, hash and scan of buffers, so multi-GiB outputs and inputs never
// cross PCIe just to be poisoned or compared. The kernels are the cuda
// device's; the same source also compiles in interpret mode, where
// tests/device runs them on the CPU (the gpu build runs that test on a GPU).
#if defined(KG_INTERPRET)
#include "kernelgate/interpret/cuda_shims.hpp"
#else
#include <cuda_runtime_api.h>
#endif

#include <cstddef>
#include <cstdint>

namespace kg::cuda_detail {

// Repeats `word` over [data, data + bytes); a tail shorter than a word gets the
// word's leading bytes in memory order. Enqueued on `stream`.
void fill_words(void* data, std::size_t bytes, std::uint32_t word, cudaStream_t stream);

// An order-sensitive 64-bit hash of the bytes (not cryptographic). `scratch`
// is 8 bytes of device memory. Synchronises `stream` to return the value.
std::uint64_t hash_bytes(const void* data, std::size_t bytes, std::uint64_t* scratch, cudaStream_t stream);

// Counts, over the floats of [data, data + count), the elements equal to
// `poison` and the other NaN or infinite ones, with the first index of each
// (-1 when none). `scratch` is 4 x 8 bytes of device memory. Synchronises
// `stream` to return the values.
struct FloatScanCounts {
  std::int64_t poisoned, first_poisoned, non_finite, first_non_finite;
};
FloatScanCounts scan_floats(const float* data, std::size_t count, std::uint32_t poison,
                            unsigned long long* scratch, cudaStream_t stream);

// values[i] = data[indices[i]] for `count` indices, both in device memory.
void gather_floats(const float* data, const std::int64_t* indices, std::size_t count, float* values,
                   cudaStream_t stream);

// Reads [data, data + bytes) through L2 (16 bytes per load) and keeps
// nothing: after a write-based L2 flush, a read of the flush buffer's first
// half evicts the dirty lines the second half left (their write-back happens
// here, not in the next timed kernel) and leaves L2 holding clean lines.
// `sink` is one word of device memory, written only if the loads' XOR is an
// impossible value (so the loads cannot be elided).
void read_sweep(const void* data, std::size_t bytes, std::uint32_t* sink, cudaStream_t stream);

// One warp of a kernel that does nothing, on `stream` (Device::launch_empty_kernel).
void launch_empty_kernel(cudaStream_t stream);

}  // namespace kg::cuda_detail
