#pragma once
// The few CUDA runtime API pieces that host code around a launch uses,
// for interpret mode. Work is done synchronously on the calling thread; every
// stream-ordered call leaves a launch record (kernelgate/interpret/launch.hpp)
// so the runner can tell whether a candidate used the stream it was given.
#include <cstddef>

// A stream is a pointer to this struct, as cudaStream_t is a pointer to the
// driver's CUstream_st. The null stream is the default stream.
struct CUstream_st {
  unsigned long long id;
};
typedef CUstream_st* cudaStream_t;

enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorLaunchFailure = 719,
};
typedef cudaError_t cudaError;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

// Errors inside interpret-mode launches are thrown as kg::Error at once, so the
// sticky error state is always cudaSuccess.
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorName(cudaError_t error);
const char* cudaGetErrorString(cudaError_t error);

cudaError_t cudaMemsetAsync(void* dst, int value, std::size_t count, cudaStream_t stream = nullptr);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream = nullptr);
cudaError_t cudaMemset(void* dst, int value, std::size_t count);
cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind);

// Streams are ids only; every operation has completed when its call returns.
cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaDeviceSynchronize();
