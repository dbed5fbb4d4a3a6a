#pragma once
// The CUDA runtime calls of the simulated GPU (simulated_gpu.cpp), which the
// API of kernelgate/interpret/cuda_shims.hpp forwards to once a process has
// opened one (cuda_shims.cpp). Each has the API call's contract; the names
// drop the `cuda` prefix.
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
cudaError_t set_device(int device);
cudaError_t get_device(int* device);
cudaError_t device_reset();
cudaError_t get_device_properties(cudaDeviceProp* properties, int device);
cudaError_t device_get_attribute(int* value, cudaDeviceAttr attribute, int device);
cudaError_t device_get_pci_bus_id(char* bus_id, int length, int device);
cudaError_t driver_get_version(int* version);
cudaError_t malloc_device(void** pointer, std::size_t bytes);
cudaError_t free_device(void* pointer);
cudaError_t host_alloc(void** pointer, std::size_t bytes, unsigned int flags);
cudaError_t host_get_device_pointer(void** device_pointer, void* host_pointer, unsigned int flags);
cudaError_t free_host(void* pointer);
cudaError_t event_create(cudaEvent_t* event, unsigned int flags);
cudaError_t event_record(cudaEvent_t event, cudaStream_t stream);
cudaError_t event_synchronize(cudaEvent_t event);
cudaError_t event_query(cudaEvent_t event);
cudaError_t event_elapsed_time(float* ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t event_destroy(cudaEvent_t event);
cudaError_t device_set_limit(cudaLimit limit, std::size_t value);
cudaError_t device_get_limit(std::size_t* value, cudaLimit limit);
cudaError_t reset_persisting_l2();
cudaError_t stream_set_attribute(cudaStream_t stream, cudaStreamAttrID attribute, const cudaStreamAttrValue* value);
cudaError_t stream_get_attribute(cudaStream_t stream, cudaStreamAttrID attribute, cudaStreamAttrValue* value);

}  // namespace kg::interp::simulated
