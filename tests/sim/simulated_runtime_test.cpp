// The simulated GPU's runtime (kernelgate/interpret/simulated_gpu.hpp): the
// documented semantics the cuda device relies on, and the misuse that fails
// on a GPU failing here too. A binary of its own: opening the simulated GPU
// turns the process's interpret-mode runtime into it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/shared_memory.cuh"
#include "kernelgate/cuda.hpp"
#include "kernelgate/detail/device.hpp"
#include "kernelgate/interpret/simulated_gpu.hpp"
#include "kernelgate/ptx.hpp"
#include "support/error_of.hpp"

namespace kg::test {
namespace {

using interp::sim::Script;

__global__ void add_one(float* data, int count) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < count) data[i] += 1.0f;
}

__global__ void fence_for_wgmma() { kg::wgmma_fence(); }

// Each test starts from a fresh card, scripted as it asks.
void open_card(Script script = {}) {
  interp::sim::open(*interp::sim::find_card("h100-sxm"), script);
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
}

float* device_floats(const std::vector<float>& values) {
  void* memory = nullptr;
  EXPECT_EQ(cudaMalloc(&memory, values.size() * sizeof(float)), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(memory, values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  return static_cast<float*>(memory);
}

TEST(SimulatedRuntime, StreamWorkRunsWhenItIsWaitedFor) {
  open_card();
  float* data = device_floats({1, 2, 3});
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  kg::launch(add_one, dim3(1), dim3(32), 0, stream, data, 3);
  EXPECT_EQ(data[0], 1.0f);  // enqueued, not run: as on a GPU, the host may not assume it ran
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(data[0], 2.0f);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  EXPECT_EQ(cudaFree(data), cudaSuccess);
}

// The harness waits for its own stream; work a candidate left on another
// stream is still pending then, and runs when the whole device is waited for.
TEST(SimulatedRuntime, WorkOnAnotherStreamOutlivesTheHarnessStreamsWait) {
  open_card();
  float* data = device_floats({0});
  cudaStream_t harness = nullptr, other = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&harness, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&other), cudaSuccess);
  kg::launch(add_one, dim3(1), dim3(1), 0, other, data, 1);
  ASSERT_EQ(cudaStreamSynchronize(harness), cudaSuccess);
  EXPECT_EQ(data[0], 0.0f);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(data[0], 1.0f);
}

TEST(SimulatedRuntime, EventsTimeTheirStreamAndRefuseMisuse) {
  open_card();
  cudaEvent_t start = nullptr, stop = nullptr, untimed = nullptr;
  ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&stop), cudaSuccess);
  ASSERT_EQ(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming), cudaSuccess);
  float ms = -1;
  // Never recorded: no time to give.
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaErrorInvalidResourceHandle);
  ASSERT_EQ(cudaEventRecord(start, nullptr), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(stop, nullptr), cudaSuccess);
  // Recorded, but its place in the stream not reached yet.
  EXPECT_EQ(cudaEventQuery(stop), cudaErrorNotReady);
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaErrorNotReady);
  EXPECT_EQ(cudaGetLastError(), cudaErrorNotReady);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // read and cleared
  ASSERT_EQ(cudaEventSynchronize(stop), cudaSuccess);
  ASSERT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
  EXPECT_GE(ms, 0.0f);
  ASSERT_EQ(cudaEventRecord(untimed, nullptr), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(untimed), cudaSuccess);
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, untimed), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventDestroy(untimed), cudaSuccess);
  EXPECT_EQ(cudaEventDestroy(untimed), cudaErrorInvalidResourceHandle);
}

TEST(SimulatedRuntime, CopiesAndMemsetsStayInsideTheirAllocationAndDirection) {
  open_card();
  float* data = device_floats({1, 2, 3, 4});
  std::vector<float> host(8);
  // Past the end of the allocation.
  EXPECT_EQ(cudaMemcpy(host.data(), data, 8 * sizeof(float), cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemsetAsync(data + 2, 0, 3 * sizeof(float), nullptr), cudaErrorInvalidValue);
  // The direction named is not the pointers'.
  EXPECT_EQ(cudaMemcpy(host.data(), data, 4 * sizeof(float), cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(data, host.data(), 4 * sizeof(float), cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemsetAsync(host.data(), 0, sizeof(float), nullptr), cudaErrorInvalidValue);  // host memory
  // Within bounds and direction: done, and the host sees it on return.
  ASSERT_EQ(cudaMemcpy(host.data(), data, 4 * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(host[3], 4.0f);
  EXPECT_EQ(cudaFree(data + 1), cudaErrorInvalidValue);  // not the start of an allocation
  EXPECT_EQ(cudaFree(data), cudaSuccess);
}

TEST(SimulatedRuntime, PageableSourcesAreReadWhenTheCopyIsIssued) {
  open_card();
  float* data = device_floats({0, 0});
  std::vector<float> host{5, 6};
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(data, host.data(), 2 * sizeof(float), cudaMemcpyHostToDevice, stream), cudaSuccess);
  host[0] = 99;  // the runtime staged the pageable source already
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(data[0], 5.0f);
}

TEST(SimulatedRuntime, ALaunchOnADestroyedStreamIsRefused) {
  open_card();
  float* data = device_floats({0});
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  EXPECT_THAT(error_of([&] { kg::launch(add_one, dim3(1), dim3(1), 0, stream, data, 1); }),
              testing::HasSubstr("cudaErrorInvalidResourceHandle"));
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaErrorInvalidResourceHandle);
}

// A fault is sticky: the work after it never runs, and every call returns it
// until the device is reset.
TEST(SimulatedRuntime, AFaultIsStickyUntilTheDeviceIsReset) {
  Script faulting;
  faulting.fault_at_kernel = 2;
  open_card(faulting);
  float* data = device_floats({0});
  kg::launch(add_one, dim3(1), dim3(1), 0, nullptr, data, 1);
  kg::launch(add_one, dim3(1), dim3(1), 0, nullptr, data, 1);  // faults
  kg::launch(add_one, dim3(1), dim3(1), 0, nullptr, data, 1);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  EXPECT_EQ(data[0], 1.0f);
  EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);  // not cleared by reading it
  void* more = nullptr;
  EXPECT_EQ(cudaMalloc(&more, 16), cudaErrorIllegalAddress);
  EXPECT_THAT(error_of([&] { kg::launch(add_one, dim3(1), dim3(1), 0, nullptr, data, 1); }),
              testing::HasSubstr("cudaErrorIllegalAddress"));
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&more, 16), cudaSuccess);
}

// The stream hold of a timed sample: nothing behind it runs before the host
// releases it; waiting on it first makes it give up, as the GPU's does at
// its limit.
TEST(SimulatedRuntime, AHoldKeepsLaterWorkUntilReleasedAndExpiresWhenWaitedOn) {
  open_card();
  float* data = device_floats({0});
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  auto hold = std::make_shared<interp::sim::Hold>();
  ASSERT_EQ(interp::sim::enqueue_hold(stream, hold), cudaSuccess);
  kg::launch(add_one, dim3(1), dim3(1), 0, stream, data, 1);
  hold->released = true;
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_FALSE(hold->expired);
  EXPECT_EQ(data[0], 1.0f);
  auto forgotten = std::make_shared<interp::sim::Hold>();
  ASSERT_EQ(interp::sim::enqueue_hold(stream, forgotten), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_TRUE(forgotten->expired);
}

TEST(SimulatedRuntime, TheCardIsTheHardwareTablesAndItsComputeModeIsScripted) {
  Script prohibited;
  prohibited.compute_mode = cudaComputeModeProhibited;
  open_card(prohibited);
  cudaDeviceProp properties{};
  ASSERT_EQ(cudaGetDeviceProperties(&properties, 0), cudaSuccess);  // no context needed
  EXPECT_STREQ(properties.name, "NVIDIA H100 80GB HBM3");
  int value = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&value, cudaDevAttrComputeMode, 0), cudaSuccess);
  EXPECT_EQ(value, cudaComputeModeProhibited);
  EXPECT_EQ(cudaSetDevice(0), cudaErrorDevicesUnavailable);  // no context in PROHIBITED mode
  EXPECT_EQ(cudaGetDeviceProperties(&properties, 1), cudaErrorInvalidDevice);
}

// NVML's clock as scripted: a share of the timed samples (a hold opens one,
// a device synchronize closes it) throttled, both readings of a sample alike.
TEST(SimulatedRuntime, TheScriptedClockThrottlesItsShareOfSamples) {
  Script locked_and_throttled;
  locked_and_throttled.sm_clock_mhz = 1410;
  locked_and_throttled.throttle_permille = 250;
  locked_and_throttled.throttle_mhz = 700;
  open_card(locked_and_throttled);
  int throttled = 0;
  for (int sample = 0; sample < 8; ++sample) {
    const interp::sim::ClockReading before = interp::sim::clock_now();
    ASSERT_EQ(interp::sim::enqueue_hold(nullptr, std::make_shared<interp::sim::Hold>()), cudaSuccess);
    const interp::sim::ClockReading after = interp::sim::clock_now();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(before.sm_mhz, after.sm_mhz);
    EXPECT_TRUE(after.event_reasons & 0x2);  // a locked clock, always
    if (after.sm_mhz == 700) {
      ++throttled;
      EXPECT_TRUE(after.event_reasons & 0x8);
    } else {
      EXPECT_EQ(after.sm_mhz, 1410);
    }
  }
  EXPECT_EQ(throttled, 2);
}

// The persisting-L2 settings a candidate can make: the card's limit (clamped
// to the L2, as the runtime clamps to what the card can set aside) and a
// window per live stream, both gone with the context.
TEST(SimulatedRuntime, PersistingL2SettingsAreKeptPerCardAndStream) {
  open_card();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, std::size_t{1} << 40), cudaSuccess);
  std::size_t limit = 0;
  ASSERT_EQ(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize), cudaSuccess);
  EXPECT_EQ(limit, static_cast<std::size_t>(interp::sim::card().l2_cache_bytes));
  cudaStreamAttrValue window{};
  window.accessPolicyWindow = {.base_ptr = &limit, .num_bytes = 4096, .hitRatio = 1.0f,
                               .hitProp = cudaAccessPropertyPersisting, .missProp = cudaAccessPropertyStreaming};
  ASSERT_EQ(cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &window), cudaSuccess);
  cudaStreamAttrValue seen{};
  ASSERT_EQ(cudaStreamGetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &seen), cudaSuccess);
  EXPECT_EQ(seen.accessPolicyWindow.num_bytes, 4096u);
  ASSERT_EQ(cudaStreamGetAttribute(nullptr, cudaStreamAttributeAccessPolicyWindow, &seen), cudaSuccess);
  EXPECT_EQ(seen.accessPolicyWindow.num_bytes, 0u);  // another stream's window is its own
  ASSERT_EQ(cudaCtxResetPersistingL2Cache(), cudaSuccess);
  EXPECT_EQ(interp::sim::persisting_l2_resets(), 1u);
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize), cudaSuccess);
  EXPECT_EQ(limit, 0u);
  EXPECT_EQ(interp::sim::persisting_l2_resets(), 0u);
  EXPECT_EQ(cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &window),
            cudaErrorInvalidResourceHandle);  // destroyed with the context
}

// What one timed sample's candidate leaves (a raised persisting limit, a
// window on the stream it was given) is gone when the next sample's launch
// is enqueued: the cuda device resets it before each flush.
TEST(CudaDeviceOnTheSimulatedGpu, EveryTimedSampleStartsWithoutPersistingL2) {
  const std::unique_ptr<Device> device = open_device("sim:h100-sxm");
  const std::uint64_t resets_before = interp::sim::persisting_l2_resets();
  float kept = 0;
  for (int sample = 0; sample < 2; ++sample) {
    ASSERT_EQ(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, std::size_t{8} << 20), cudaSuccess);
    cudaStreamAttrValue window{};
    window.accessPolicyWindow = {.base_ptr = &kept, .num_bytes = 1 << 20, .hitRatio = 1.0f,
                                 .hitProp = cudaAccessPropertyPersisting, .missProp = cudaAccessPropertyStreaming};
    ASSERT_EQ(cudaStreamSetAttribute(device->stream(), cudaStreamAttributeAccessPolicyWindow, &window), cudaSuccess);
    std::size_t limit_seen = 1;
    cudaStreamAttrValue window_seen{};
    window_seen.accessPolicyWindow.num_bytes = 1;
    device->time([&] {
      ASSERT_EQ(cudaDeviceGetLimit(&limit_seen, cudaLimitPersistingL2CacheSize), cudaSuccess);
      ASSERT_EQ(cudaStreamGetAttribute(device->stream(), cudaStreamAttributeAccessPolicyWindow, &window_seen),
                cudaSuccess);
    });
    EXPECT_EQ(limit_seen, 0u) << "sample " << sample;
    EXPECT_EQ(window_seen.accessPolicyWindow.num_bytes, 0u) << "sample " << sample;
  }
  EXPECT_EQ(interp::sim::persisting_l2_resets() - resets_before, 2u);
  EXPECT_EQ(device->environment().value("l2_persisting_limit_bytes", -1), 0);
}

// wgmma is sm_90a's: a build puts a trap in its place for every other
// architecture, so on a simulated card of another one the kernel fails as
// that trap would, with an unspecified launch failure; on the H100 it runs.
TEST(SimulatedRuntime, WgmmaOnAnotherArchitectureFailsAsItsTrapWould) {
  for (const char* key : {"b200", "a100-sxm", "h100-sxm"}) {
    SCOPED_TRACE(key);
    interp::sim::open(*interp::sim::find_card(key), Script{});
    ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    kg::launch(fence_for_wgmma, dim3(1), dim3(128), 0, stream);
    EXPECT_EQ(cudaStreamSynchronize(stream), std::string(key) == "h100-sxm" ? cudaSuccess : cudaErrorLaunchFailure);
  }
}

__global__ void uses_dynamic_smem() {}

// A block's shared memory opt-in is the card's: 163 KiB on an A100, 99 KiB
// on an L40S, 227 KiB on Hopper and Blackwell. Above it kg::set_max_dynamic_smem
// fails as cudaFuncSetAttribute does, and a candidate sizing its tile with
// kernels::block_smem_limit sees the smaller figure.
TEST(SimulatedRuntime, SharedMemoryPerBlockIsTheCards) {
  const std::pair<const char*, std::size_t> cards[] = {
      {"a100-sxm", 163 * 1024}, {"l40s", 99 * 1024}, {"h100-sxm", 227 * 1024}, {"b200", 227 * 1024}};
  for (const auto& [key, optin] : cards) {
    SCOPED_TRACE(key);
    interp::sim::open(*interp::sim::find_card(key), Script{});
    EXPECT_EQ(kg::max_dynamic_smem_per_block(), optin);
    EXPECT_EQ(kernels::block_smem_limit(200 * 1024), std::min<std::size_t>(200 * 1024, optin));
    EXPECT_NO_THROW(kg::set_max_dynamic_smem(uses_dynamic_smem, optin));
    EXPECT_THAT(error_of([&] { kg::set_max_dynamic_smem(uses_dynamic_smem, optin + 1); }),
                ::testing::HasSubstr("exceeds the maximum dynamic shared memory of a block"));
  }
}

}  // namespace
}  // namespace kg::test
