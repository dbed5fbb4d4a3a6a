// The CUDA runtime API of kernelgate/interpret/cuda_shims.hpp that interpret
// mode answers itself, and the launch records it and kg::launch leave:
// interpret mode's own synchronous answers, or, once the process has opened a
// simulated GPU, the simulated runtime's (simulated_gpu.cpp, which also
// defines the calls only a GPU answers).
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "kernelgate/interpret/cuda_shims.hpp"
#include "kernelgate/interpret/launch.hpp"
#include "kernelgate/interpret/simulated_gpu.hpp"
#include "launch_records.hpp"
#include "simulated_runtime.hpp"

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
namespace simulated = kg::interp::simulated;

namespace {

bool simulated_gpu() { return kg::interp::sim::is_open(); }

void record_transfer(LaunchRecord::Kind kind, cudaStream_t stream, std::size_t count) {
  record_operation(LaunchRecord{kind, stream, kg::interp::stream_id_of(stream), dim3{0, 0, 0}, dim3{0, 0, 0}, count,
                                nullptr});
}

}  // namespace

cudaError_t cudaGetLastError() { return simulated_gpu() ? simulated::get_last_error() : cudaSuccess; }
cudaError_t cudaPeekAtLastError() { return simulated_gpu() ? simulated::peek_at_last_error() : cudaSuccess; }

const char* cudaGetErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
    case cudaErrorDevicesUnavailable: return "cudaErrorDevicesUnavailable";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorLaunchTimeout: return "cudaErrorLaunchTimeout";
    case cudaErrorHardwareStackError: return "cudaErrorHardwareStackError";
    case cudaErrorIllegalInstruction: return "cudaErrorIllegalInstruction";
    case cudaErrorMisalignedAddress: return "cudaErrorMisalignedAddress";
    case cudaErrorInvalidAddressSpace: return "cudaErrorInvalidAddressSpace";
    case cudaErrorInvalidPc: return "cudaErrorInvalidPc";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    case cudaErrorAssert: return "cudaErrorAssert";
    case cudaErrorECCUncorrectable: return "cudaErrorECCUncorrectable";
    case cudaErrorContextIsDestroyed: return "cudaErrorContextIsDestroyed";
    case cudaErrorUnsupportedLimit: return "cudaErrorUnsupportedLimit";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
  }
  return "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInsufficientDriver: return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorDevicesUnavailable: return "CUDA-capable device(s) is/are busy or unavailable";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchTimeout: return "the launch timed out and was terminated";
    case cudaErrorHardwareStackError: return "hardware stack error";
    case cudaErrorIllegalInstruction: return "an illegal instruction was encountered";
    case cudaErrorMisalignedAddress: return "misaligned address";
    case cudaErrorInvalidAddressSpace: return "operation not supported on global/shared address space";
    case cudaErrorInvalidPc: return "invalid program counter";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorAssert: return "device-side assert triggered";
    case cudaErrorECCUncorrectable: return "uncorrectable ECC error encountered";
    case cudaErrorContextIsDestroyed: return "context is destroyed";
    case cudaErrorUnsupportedLimit: return "limit is not supported on this architecture";
    case cudaErrorNotSupported: return "operation not supported";
  }
  return "unknown error";
}

cudaError_t cudaMemsetAsync(void* dst, int value, std::size_t count, cudaStream_t stream) {
  record_transfer(LaunchRecord::Kind::memset, stream, count);
  if (simulated_gpu()) return simulated::memset_async(dst, value, count, stream);
  if (dst == nullptr && count > 0) return cudaErrorInvalidValue;
  if (count > 0) std::memset(dst, value, count);
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream) {
  record_transfer(LaunchRecord::Kind::memcpy, stream, count);
  if (simulated_gpu()) return simulated::memcpy_async(dst, src, count, kind, stream);
  if ((dst == nullptr || src == nullptr) && count > 0) return cudaErrorInvalidValue;
  if (count > 0) std::memmove(dst, src, count);
  return cudaSuccess;
}

cudaError_t cudaMemset(void* dst, int value, std::size_t count) {
  if (simulated_gpu()) {
    record_transfer(LaunchRecord::Kind::memset, nullptr, count);
    return simulated::memset_blocking(dst, value, count);
  }
  return cudaMemsetAsync(dst, value, count, nullptr);
}

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind) {
  if (simulated_gpu()) {
    record_transfer(LaunchRecord::Kind::memcpy, nullptr, count);
    return simulated::memcpy_blocking(dst, src, count, kind);
  }
  return cudaMemcpyAsync(dst, src, count, kind, nullptr);
}

cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithFlags(stream, cudaStreamDefault); }

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  if (simulated_gpu()) return simulated::stream_create(stream, flags);
  static std::atomic<unsigned long long> next_id{1};
  if (stream == nullptr) return cudaErrorInvalidValue;
  *stream = new CUstream_st{next_id.fetch_add(1)};
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  if (simulated_gpu()) return simulated::stream_destroy(stream);
  if (stream == nullptr) return cudaErrorInvalidResourceHandle;
  delete stream;
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  return simulated_gpu() ? simulated::stream_synchronize(stream) : cudaSuccess;
}
cudaError_t cudaDeviceSynchronize() { return simulated_gpu() ? simulated::device_synchronize() : cudaSuccess; }

// The device count and the driver: interpret mode proper has neither.
cudaError_t cudaGetDeviceCount(int* count) {
  if (simulated_gpu()) return simulated::get_device_count(count);
  if (count) *count = 0;
  return cudaErrorNoDevice;
}
cudaError_t cudaDriverGetVersion(int* version) {
  if (simulated_gpu()) return simulated::driver_get_version(version);
  if (version) *version = 0;  // the runtime's answer when no driver is installed
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* version) {
  if (version == nullptr) return cudaErrorInvalidValue;
  *version = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, cudaEventDefault); }

namespace {

// Interpret mode proper has no L2 to persist in: it keeps the settings, so a
// candidate that reads back what it set sees it, and nothing else.
struct InterpretPersistingL2 {
  std::mutex mutex;
  std::size_t limit = 0;
  std::map<unsigned long long, cudaAccessPolicyWindow> windows;  // by stream id
};
InterpretPersistingL2& interpret_persisting_l2() {
  static InterpretPersistingL2 state;
  return state;
}

}  // namespace

cudaError_t cudaDeviceSetLimit(cudaLimit limit, std::size_t value) {
  if (simulated_gpu()) return simulated::device_set_limit(limit, value);
  if (limit != cudaLimitPersistingL2CacheSize) return cudaErrorUnsupportedLimit;
  std::lock_guard lock(interpret_persisting_l2().mutex);
  interpret_persisting_l2().limit = value;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(std::size_t* value, cudaLimit limit) {
  if (simulated_gpu()) return simulated::device_get_limit(value, limit);
  if (value == nullptr) return cudaErrorInvalidValue;
  if (limit != cudaLimitPersistingL2CacheSize) return cudaErrorUnsupportedLimit;
  std::lock_guard lock(interpret_persisting_l2().mutex);
  *value = interpret_persisting_l2().limit;
  return cudaSuccess;
}

cudaError_t cudaCtxResetPersistingL2Cache() {
  return simulated_gpu() ? simulated::reset_persisting_l2() : cudaSuccess;
}

cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attribute, const cudaStreamAttrValue* value) {
  if (simulated_gpu()) return simulated::stream_set_attribute(stream, attribute, value);
  if (value == nullptr || attribute != cudaStreamAttributeAccessPolicyWindow) return cudaErrorInvalidValue;
  std::lock_guard lock(interpret_persisting_l2().mutex);
  interpret_persisting_l2().windows[kg::interp::stream_id_of(stream)] = value->accessPolicyWindow;
  return cudaSuccess;
}

cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attribute, cudaStreamAttrValue* value) {
  if (simulated_gpu()) return simulated::stream_get_attribute(stream, attribute, value);
  if (value == nullptr || attribute != cudaStreamAttributeAccessPolicyWindow) return cudaErrorInvalidValue;
  std::lock_guard lock(interpret_persisting_l2().mutex);
  const auto& windows = interpret_persisting_l2().windows;
  const auto found = windows.find(kg::interp::stream_id_of(stream));
  value->accessPolicyWindow = found != windows.end() ? found->second : cudaAccessPolicyWindow{};
  return cudaSuccess;
}
