// Fill, hash, scan and gather kernels of the cuda device. Grid-stride loops
// (kg::grid_stride) over 64-bit indices: buffers here reach several GiB.
// Launched through kg::launch, so the file also compiles in interpret mode
// for its test (device_memory.hpp).
#include "device_memory.hpp"
#include "platform.hpp"

#include <algorithm>
#include <cstring>

#include "kernelgate/cuda.hpp"
#include "kernelgate/cuda_check.hpp"
#include "kernelgate/grid_stride.hpp"

namespace kg::cuda_detail {
namespace {

constexpr int kThreads = 256;

__global__ void fill_words_kernel(std::uint32_t* data, std::int64_t words, std::uint32_t word) {
  for (const std::int64_t i : kg::grid_stride(words)) data[i] = word;
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
__global__ void read_sweep_kernel(const uint4* data, std::int64_t count, std::uint32_t* sink) {
  std::uint32_t folded = 0;
  for (const std::int64_t i : kg::grid_stride(count)) {
    const uint4 v = __ldcg(data + i);  // through L2, not L1
    folded ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (folded == 0x9e3779b9u) *sink = folded;  // never in practice; keeps the loads
}

__global__ void empty_kernel() {}

__global__ void hash_kernel(const unsigned char* data, std::size_t bytes, std::uint64_t* result) {
  const std::size_t chunks = bytes / 8;
  std::uint64_t sum = 0;
  for (const std::int64_t i : kg::grid_stride(static_cast<std::int64_t>(chunks))) {
    std::uint64_t chunk;
    memcpy(&chunk, data + 8 * i, 8);  // buffers are 256-byte aligned; memcpy keeps unaligned callers safe
    sum += mix(chunk ^ mix(static_cast<std::uint64_t>(i) + 0x9e3779b97f4a7c15ull));
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    std::uint64_t tail = 0;
    for (std::size_t i = chunks * 8; i < bytes; ++i) tail = (tail << 8) | data[i];
    sum += mix(tail ^ mix(bytes));
  }
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if ((threadIdx.x & 31) == 0) atomicAdd(reinterpret_cast<unsigned long long*>(result), sum);
}

// scratch[0]: poisoned count, [1]: first poisoned index, [2]: other
// non-finite count, [3]: first of those; the firsts start at ~0 (none).
__global__ void scan_floats_kernel(const std::uint32_t* data, std::int64_t count, std::uint32_t poison,
                                   unsigned long long* scratch) {
  unsigned long long poisoned = 0, non_finite = 0;
  unsigned long long first_poisoned = ~0ull, first_non_finite = ~0ull;
  for (const std::int64_t index : kg::grid_stride(count)) {
    const auto i = static_cast<unsigned long long>(index);
    const std::uint32_t word = data[index];
    if (word == poison) {
      ++poisoned;
      if (i < first_poisoned) first_poisoned = i;
    } else if ((word & 0x7f800000u) == 0x7f800000u) {
      ++non_finite;
      if (i < first_non_finite) first_non_finite = i;
    }
  }
  if (poisoned) {
    atomicAdd(&scratch[0], poisoned);
    atomicMin(&scratch[1], first_poisoned);
  }
  if (non_finite) {
    atomicAdd(&scratch[2], non_finite);
    atomicMin(&scratch[3], first_non_finite);
  }
}

__global__ void gather_floats_kernel(const float* data, const std::int64_t* indices, std::int64_t count,
                                     float* values) {
  for (const std::int64_t i : kg::grid_stride(count)) values[i] = data[indices[i]];
}

unsigned int grid_for(std::size_t items) {
  // At most 4096 blocks: enough to fill any current GPU several times over
  // (the loop does the rest), and few atomics where blocks combine results.
  return std::min(kg::grid_stride_blocks(static_cast<std::int64_t>(items), kThreads), 4096u);
}

}  // namespace

void launch_empty_kernel(cudaStream_t stream) {
  kg::launch(empty_kernel, dim3(1), dim3(32), 0, stream);
}

void read_sweep(const void* data, std::size_t bytes, std::uint32_t* sink, cudaStream_t stream) {
  const std::size_t vectors = bytes / sizeof(uint4);
  if (vectors == 0) return;
  kg::launch(read_sweep_kernel, dim3(grid_for(vectors)), dim3(kThreads), 0, stream, static_cast<const uint4*>(data),
             vectors, sink);
}

void fill_words(void* data, std::size_t bytes, std::uint32_t word, cudaStream_t stream) {
  const std::size_t words = bytes / 4;
  if (words > 0) {
    kg::launch(fill_words_kernel, dim3(grid_for(words)), dim3(kThreads), 0, stream, static_cast<std::uint32_t*>(data),
               words, word);
  }
  if (const std::size_t tail = bytes % 4; tail > 0)
    KG_CUDA_CHECK(cudaMemcpyAsync(static_cast<unsigned char*>(data) + words * 4, &word, tail,
                                  cudaMemcpyHostToDevice, stream));
  // The tail copy reads `word` from this frame: finish it before returning.
  if (bytes % 4 != 0) KG_CUDA_CHECK(cudaStreamSynchronize(stream));
}

std::uint64_t hash_bytes(const void* data, std::size_t bytes, std::uint64_t* scratch, cudaStream_t stream) {
  KG_CUDA_CHECK(cudaMemsetAsync(scratch, 0, sizeof *scratch, stream));
  kg::launch(hash_kernel, dim3(grid_for(bytes / 8)), dim3(kThreads), 0, stream, static_cast<const unsigned char*>(data),
             bytes, scratch);
  std::uint64_t value = 0;
  KG_CUDA_CHECK(cudaMemcpyAsync(&value, scratch, sizeof value, cudaMemcpyDeviceToHost, stream));
  KG_CUDA_CHECK(cudaStreamSynchronize(stream));
  return value;
}

FloatScanCounts scan_floats(const float* data, std::size_t count, std::uint32_t poison,
                            unsigned long long* scratch, cudaStream_t stream) {
  const unsigned long long initial[4] = {0, ~0ull, 0, ~0ull};
  KG_CUDA_CHECK(cudaMemcpyAsync(scratch, initial, sizeof initial, cudaMemcpyHostToDevice, stream));
  if (count > 0) {
    kg::launch(scan_floats_kernel, dim3(grid_for(count)), dim3(kThreads), 0, stream,
               reinterpret_cast<const std::uint32_t*>(data), count, poison, scratch);
  }
  unsigned long long result[4] = {};
  KG_CUDA_CHECK(cudaMemcpyAsync(result, scratch, sizeof result, cudaMemcpyDeviceToHost, stream));
  KG_CUDA_CHECK(cudaStreamSynchronize(stream));  // also keeps `initial` alive until copied
  auto first = [](unsigned long long index) {
    return index == ~0ull ? std::int64_t{-1} : static_cast<std::int64_t>(index);
  };
  return {static_cast<std::int64_t>(result[0]), first(result[1]), static_cast<std::int64_t>(result[2]),
          first(result[3])};
}

void gather_floats(const float* data, const std::int64_t* indices, std::size_t count, float* values,
                   cudaStream_t stream) {
  if (count == 0) return;
  kg::launch(gather_floats_kernel, dim3(grid_for(count)), dim3(kThreads), 0, stream, data, indices, count, values);
}

#if !defined(KG_INTERPRET)
// platform.hpp's: the one piece of it only nvcc can say.
std::string cuda_compiler_version() {
  return "nvcc " + std::to_string(__CUDACC_VER_MAJOR__) + "." + std::to_string(__CUDACC_VER_MINOR__) + "." +
         std::to_string(__CUDACC_VER_BUILD__);
}
#endif

}  // namespace kg::cuda_detail
