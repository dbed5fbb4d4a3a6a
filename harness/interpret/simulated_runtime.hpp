#pragma once
// The CUDA runtime calls that interpret mode answers itself (cuda_shims.cpp)
// until a process opens a simulated GPU, and that then forward here
// (simulated_gpu.cpp). Each has the API call's contract; the names drop the
// `cuda` prefix. The calls only a GPU answers (devices, allocations, events)
// are defined by simulated_gpu.cpp itself.
#include <cstddef>

#include "kernelgate/interpret/cuda_shims.hpp"

namespace kg::interp::simulated {

cudaError_t get_last_error();
cudaError_t peek_at_last_error();

cudaError_t memset_async(void* dst, int value, std::size_t count, cudaStream_t stream);
cudaError_t memcpy_async(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t memset_blocking(void* dst, int value, std::size_t count);
cudaError_t memcpy_blocking(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind);

cudaError_t stream_create(cudaStream_t* stream, unsigned int flags);
cudaError_t stream_destroy(cudaStream_t stream);
cudaError_t stream_synchronize(cudaStream_t stream);
cudaError_t device_synchronize();

cudaError_t get_device_count(int* count);
cudaError_t driver_get_version(int* version);
cudaError_t device_set_limit(cudaLimit limit, std::size_t value);
cudaError_t device_get_limit(std::size_t* value, cudaLimit limit);
cudaError_t reset_persisting_l2();
cudaError_t stream_set_attribute(cudaStream_t stream, cudaStreamAttrID attribute, const cudaStreamAttrValue* value);
cudaError_t stream_get_attribute(cudaStream_t stream, cudaStreamAttrID attribute, cudaStreamAttrValue* value);

}  // namespace kg::interp::simulated
