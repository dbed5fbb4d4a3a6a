// The CUDA runtime API shims of kernelgate/interpret/cuda_shims.hpp and the
// launch records they and kg::launch leave.
#include <atomic>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include "kernelgate/interpret/cuda_shims.hpp"
#include "kernelgate/interpret/launch.hpp"
#include "launch_records.hpp"

namespace kg::interp {

namespace {
std::mutex& records_mutex() {
  static std::mutex mutex;
  return mutex;
}
std::vector<LaunchRecord>& records() {
  static std::vector<LaunchRecord> all;
  return all;
}
}  // namespace

unsigned long long stream_id_of(cudaStream_t stream) { return stream ? stream->id : 0; }

void record_operation(const LaunchRecord& record) {
  std::lock_guard lock(records_mutex());
  records().push_back(record);
}

std::vector<LaunchRecord> take_launch_records() {
  std::lock_guard lock(records_mutex());
  return std::exchange(records(), {});
}

}  // namespace kg::interp

using kg::interp::LaunchRecord;
using kg::interp::record_operation;

cudaError_t cudaGetLastError() { return cudaSuccess; }
cudaError_t cudaPeekAtLastError() { return cudaSuccess; }

const char* cudaGetErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
  }
  return "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
  }
  return "unknown error";
}

cudaError_t cudaMemsetAsync(void* dst, int value, std::size_t count, cudaStream_t stream) {
  if (dst == nullptr && count > 0) return cudaErrorInvalidValue;
  record_operation(LaunchRecord{LaunchRecord::Kind::memset, stream, kg::interp::stream_id_of(stream),
                                dim3{0, 0, 0}, dim3{0, 0, 0}, count, nullptr});
  if (count > 0) std::memset(dst, value, count);
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t count, cudaMemcpyKind,
                            cudaStream_t stream) {
  if ((dst == nullptr || src == nullptr) && count > 0) return cudaErrorInvalidValue;
  record_operation(LaunchRecord{LaunchRecord::Kind::memcpy, stream, kg::interp::stream_id_of(stream),
                                dim3{0, 0, 0}, dim3{0, 0, 0}, count, nullptr});
  if (count > 0) std::memmove(dst, src, count);
  return cudaSuccess;
}

cudaError_t cudaMemset(void* dst, int value, std::size_t count) {
  return cudaMemsetAsync(dst, value, count, nullptr);
}

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind) {
  return cudaMemcpyAsync(dst, src, count, kind, nullptr);
}

cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  static std::atomic<unsigned long long> next_id{1};
  if (stream == nullptr) return cudaErrorInvalidValue;
  *stream = new CUstream_st{next_id.fetch_add(1)};
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  if (stream == nullptr) return cudaErrorInvalidResourceHandle;
  delete stream;
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
