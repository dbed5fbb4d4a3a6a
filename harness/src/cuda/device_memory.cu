// Fill and hash kernels of the cuda device. Grid-stride loops over 64-bit
// indices: buffers here reach several GiB.
#include "device_memory.hpp"

#include <cstring>

#include "kernelgate/cuda_check.hpp"

namespace kg::cuda_detail {
namespace {

constexpr int kThreads = 256;

__global__ void fill_words_kernel(std::uint32_t* data, std::size_t words, std::uint32_t word) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += step)
    data[i] = word;
}

// splitmix64's finaliser: every input bit affects every output bit.
__device__ __forceinline__ std::uint64_t mix(std::uint64_t value) {
  value ^= value >> 30;
  value *= 0xbf58476d1ce4e5b9ull;
  value ^= value >> 27;
  value *= 0x94d049bb133111ebull;
  value ^= value >> 31;
  return value;
}

// Sum over chunks of mix(chunk, position): order-sensitive through the
// position, and a sum so blocks can combine in any order (deterministic).
__global__ void hash_kernel(const unsigned char* data, std::size_t bytes, std::uint64_t* result) {
  const std::size_t chunks = bytes / 8;
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::uint64_t sum = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < chunks; i += step) {
    std::uint64_t chunk;
    memcpy(&chunk, data + 8 * i, 8);  // buffers are 256-byte aligned; memcpy keeps unaligned callers safe
    sum += mix(chunk ^ mix(i + 0x9e3779b97f4a7c15ull));
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    std::uint64_t tail = 0;
    for (std::size_t i = chunks * 8; i < bytes; ++i) tail = (tail << 8) | data[i];
    sum += mix(tail ^ mix(bytes));
  }
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if ((threadIdx.x & 31) == 0) atomicAdd(reinterpret_cast<unsigned long long*>(result), sum);
}

unsigned int grid_for(std::size_t items) {
  // Enough blocks to fill any current GPU several times over; the loop does the rest.
  const std::size_t blocks = (items + kThreads - 1) / kThreads;
  return static_cast<unsigned int>(blocks < 4096 ? (blocks == 0 ? 1 : blocks) : 4096);
}

}  // namespace

void fill_words(void* data, std::size_t bytes, std::uint32_t word, cudaStream_t stream) {
  const std::size_t words = bytes / 4;
  if (words > 0) {
    fill_words_kernel<<<grid_for(words), kThreads, 0, stream>>>(static_cast<std::uint32_t*>(data), words, word);
    KG_CUDA_CHECK(cudaGetLastError());
  }
  if (const std::size_t tail = bytes % 4; tail > 0)
    KG_CUDA_CHECK(cudaMemcpyAsync(static_cast<unsigned char*>(data) + words * 4, &word, tail,
                                  cudaMemcpyHostToDevice, stream));
  // The tail copy reads `word` from this frame: finish it before returning.
  if (bytes % 4 != 0) KG_CUDA_CHECK(cudaStreamSynchronize(stream));
}

std::uint64_t hash_bytes(const void* data, std::size_t bytes, std::uint64_t* scratch, cudaStream_t stream) {
  KG_CUDA_CHECK(cudaMemsetAsync(scratch, 0, sizeof *scratch, stream));
  hash_kernel<<<grid_for(bytes / 8), kThreads, 0, stream>>>(static_cast<const unsigned char*>(data), bytes, scratch);
  KG_CUDA_CHECK(cudaGetLastError());
  std::uint64_t value = 0;
  KG_CUDA_CHECK(cudaMemcpyAsync(&value, scratch, sizeof value, cudaMemcpyDeviceToHost, stream));
  KG_CUDA_CHECK(cudaStreamSynchronize(stream));
  return value;
}

std::string cuda_compiler_version() {
  return "nvcc " + std::to_string(__CUDACC_VER_MAJOR__) + "." + std::to_string(__CUDACC_VER_MINOR__) + "." +
         std::to_string(__CUDACC_VER_BUILD__);
}

}  // namespace kg::cuda_detail
