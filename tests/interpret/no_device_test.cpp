// Interpret mode proper has no GPU: until a process opens a simulated card,
// every call that only a GPU answers says there is no device, and none
// touches the simulated card's state (simulated_gpu.cpp defines them).
#include <gtest/gtest.h>

#include "kernelgate/interpret/cuda_shims.hpp"
#include "kernelgate/interpret/simulated_gpu.hpp"

namespace kg::test {
namespace {

TEST(InterpretRuntime, TheCallsOfAGpuAnswerThatThereIsNone) {
  ASSERT_FALSE(kg::interp::sim::is_open());
  int count = -1, device = -1, value = -1;
  EXPECT_EQ(cudaGetDeviceCount(&count), cudaErrorNoDevice);
  EXPECT_EQ(count, 0);
  EXPECT_EQ(cudaSetDevice(0), cudaErrorNoDevice);
  EXPECT_EQ(cudaGetDevice(&device), cudaErrorNoDevice);
  EXPECT_EQ(device, -1);
  cudaDeviceProp properties{};
  EXPECT_EQ(cudaGetDeviceProperties(&properties, 0), cudaErrorNoDevice);
  EXPECT_EQ(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, 0), cudaErrorNoDevice);
  char bus_id[32] = {};
  EXPECT_EQ(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, 0), cudaErrorNoDevice);
  EXPECT_EQ(cudaDeviceReset(), cudaErrorNoDevice);

  void* memory = nullptr;
  EXPECT_EQ(cudaMalloc(&memory, 256), cudaErrorNoDevice);
  EXPECT_EQ(memory, nullptr);
  EXPECT_EQ(cudaHostAlloc(&memory, 256, 0), cudaErrorNoDevice);
  EXPECT_EQ(memory, nullptr);
  int host = 0;
  EXPECT_EQ(cudaHostGetDevicePointer(&memory, &host, 0), cudaErrorNoDevice);
  EXPECT_EQ(cudaFree(nullptr), cudaErrorNoDevice);
  EXPECT_EQ(cudaFreeHost(nullptr), cudaErrorNoDevice);

  cudaEvent_t event = nullptr;
  EXPECT_EQ(cudaEventCreate(&event), cudaErrorNoDevice);
  EXPECT_EQ(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), cudaErrorNoDevice);
  EXPECT_EQ(event, nullptr);
  float ms = 0;
  EXPECT_EQ(cudaEventRecord(event, nullptr), cudaErrorNoDevice);
  EXPECT_EQ(cudaEventSynchronize(event), cudaErrorNoDevice);
  EXPECT_EQ(cudaEventQuery(event), cudaErrorNoDevice);
  EXPECT_EQ(cudaEventElapsedTime(&ms, event, event), cudaErrorNoDevice);
  EXPECT_EQ(cudaEventDestroy(event), cudaErrorNoDevice);

  // Interpret mode proper's answers leave no error behind.
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

}  // namespace
}  // namespace kg::test
