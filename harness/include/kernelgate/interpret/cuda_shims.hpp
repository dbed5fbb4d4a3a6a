#pragma once
// The CUDA runtime API of interpret mode, in two modes of one process:
//
// - Interpret mode proper (the cpu device, the interpret-mode tests): the few
//   pieces that host code around a launch uses (errors, memset, memcpy,
//   streams). Work is done synchronously on the calling thread, and every
//   stream-ordered call leaves a launch record (kernelgate/interpret/launch.hpp)
//   so the runner can tell whether a candidate used the stream it was given.
//   The calls of a GPU (devices, memory, events, host memory) answer that
//   there is none.
// - The simulated GPU (kernelgate/interpret/simulated_gpu.hpp), once a process
//   opens one: the runtime the cuda device uses, with the documented
//   semantics of the real one. Stream work is deferred and runs when
//   something waits for it; events time it by the host clock; device memory
//   is registered, so a copy past an allocation or in the wrong direction
//   fails; a fault is sticky; a context is created and destroyed.
//
// The declarations follow the CUDA runtime API's names, types and values, so
// code written against <cuda_runtime_api.h> compiles against this header.
#include <cstddef>

// A stream is a pointer to this struct, as cudaStream_t is a pointer to the
// driver's CUstream_st. The null stream is the default stream.
struct CUstream_st {
  unsigned long long id;
};
typedef CUstream_st* cudaStream_t;

// An event, as cudaEvent_t is a pointer to the driver's CUevent_st.
struct CUevent_st;
typedef CUevent_st* cudaEvent_t;

// The runtime's status codes this API returns, with the CUDA runtime's values.
enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInsufficientDriver = 35,
  cudaErrorDevicesUnavailable = 46,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchTimeout = 702,
  cudaErrorHardwareStackError = 714,
  cudaErrorIllegalInstruction = 715,
  cudaErrorMisalignedAddress = 716,
  cudaErrorInvalidAddressSpace = 717,
  cudaErrorInvalidPc = 718,
  cudaErrorLaunchFailure = 719,
  cudaErrorAssert = 710,
  cudaErrorECCUncorrectable = 214,
  cudaErrorContextIsDestroyed = 709,
  cudaErrorUnsupportedLimit = 215,
  cudaErrorNotSupported = 801,
};
typedef cudaError_t cudaError;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

// The runtime version this API stands for (cudaRuntimeGetVersion's encoding).
#define CUDART_VERSION 12040

// Flags, with the CUDA runtime's values.
#define cudaStreamDefault 0x0
#define cudaStreamNonBlocking 0x1
#define cudaEventDefault 0x0
#define cudaEventDisableTiming 0x2
#define cudaHostAllocDefault 0x0
#define cudaHostAllocMapped 0x2

enum cudaComputeMode {
  cudaComputeModeDefault = 0,
  cudaComputeModeExclusive = 1,
  cudaComputeModeProhibited = 2,
  cudaComputeModeExclusiveProcess = 3,
};

// The device attributes the harness reads, with the CUDA runtime's values.
enum cudaDeviceAttr {
  cudaDevAttrClockRate = 13,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrComputeMode = 20,
  cudaDevAttrMemoryClockRate = 36,
};

// Persisting L2 lines, with the CUDA runtime's values: the device's limit on
// them and a stream's access-policy window, which keep data in L2 across the
// flush before a timed sample unless reset (the cuda device resets all three
// before each one). Interpret mode keeps what is set and nothing else; the
// simulated GPU keeps the limit per card and the window per stream.
enum cudaLimit { cudaLimitPersistingL2CacheSize = 0x06 };
enum cudaAccessProperty {
  cudaAccessPropertyNormal = 0,
  cudaAccessPropertyStreaming = 1,
  cudaAccessPropertyPersisting = 2,
};
struct cudaAccessPolicyWindow {
  void* base_ptr;
  std::size_t num_bytes;
  float hitRatio;
  cudaAccessProperty hitProp;
  cudaAccessProperty missProp;
};
enum cudaStreamAttrID { cudaStreamAttributeAccessPolicyWindow = 1 };
union cudaStreamAttrValue {
  cudaAccessPolicyWindow accessPolicyWindow;
};

// The fields of cudaDeviceProp the harness reads.
struct cudaDeviceProp {
  char name[256];
  std::size_t totalGlobalMem;
  int major;
  int minor;
  int multiProcessorCount;
  int l2CacheSize;
  int memoryBusWidth;
  int ECCEnabled;
};

// The last error of the calling thread, as the runtime keeps it: a failing
// call sets it, cudaGetLastError returns and clears it (a sticky error of
// the simulated GPU stays). In interpret mode proper, errors inside launches
// are thrown as kg::Error at once, so it stays cudaSuccess.
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorName(cudaError_t error);
const char* cudaGetErrorString(cudaError_t error);

cudaError_t cudaMemsetAsync(void* dst, int value, std::size_t count, cudaStream_t stream = nullptr);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream = nullptr);
cudaError_t cudaMemset(void* dst, int value, std::size_t count);
cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind);

// In interpret mode proper streams are ids only, and every operation has
// completed when its call returns.
cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaDeviceSynchronize();

// The calls of a GPU: the simulated GPU's; in interpret mode proper there is
// no device (cudaGetDeviceCount answers 0, the others cudaErrorNoDevice).
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaDeviceReset();
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* properties, int device);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attribute, int device);
cudaError_t cudaDeviceGetPCIBusId(char* bus_id, int length, int device);
cudaError_t cudaDriverGetVersion(int* version);
cudaError_t cudaRuntimeGetVersion(int* version);
cudaError_t cudaMalloc(void** pointer, std::size_t bytes);
cudaError_t cudaFree(void* pointer);
cudaError_t cudaHostAlloc(void** pointer, std::size_t bytes, unsigned int flags);
cudaError_t cudaHostGetDevicePointer(void** device_pointer, void* host_pointer, unsigned int flags);
cudaError_t cudaFreeHost(void* pointer);
cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = nullptr);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaDeviceSetLimit(cudaLimit limit, std::size_t value);
cudaError_t cudaDeviceGetLimit(std::size_t* value, cudaLimit limit);
cudaError_t cudaCtxResetPersistingL2Cache();
cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attribute, const cudaStreamAttrValue* value);
cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attribute, cudaStreamAttrValue* value);

// Templated forms as the CUDA runtime's C++ header has them.
template <typename T>
cudaError_t cudaMalloc(T** pointer, std::size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(pointer), bytes);
}
