#pragma once
// Device-side fill and hash of buffers, so multi-GiB outputs and inputs never
// cross PCIe just to be poisoned or compared.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace kg::cuda_detail {

// Repeats `word` over [data, data + bytes); a tail shorter than a word gets the
// word's leading bytes in memory order. Enqueued on `stream`.
void fill_words(void* data, std::size_t bytes, std::uint32_t word, cudaStream_t stream);

// An order-sensitive 64-bit hash of the bytes (not cryptographic). `scratch`
// is 8 bytes of device memory. Synchronises `stream` to return the value.
std::uint64_t hash_bytes(const void* data, std::size_t bytes, std::uint64_t* scratch, cudaStream_t stream);

// "nvcc 13.0.88": the compiler that built the device code.
std::string cuda_compiler_version();

}  // namespace kg::cuda_detail
