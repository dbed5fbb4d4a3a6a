// The cpu device: guard bands, hashing, poisoning, device specs and descriptions.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "kernelgate/detail/device.hpp"
#include "support/error_of.hpp"

namespace kg {
namespace {

TEST(CpuDevice, GuardBandsCatchWritesOnEitherSide) {
  auto device = open_device("cpu");
  EXPECT_EQ(device->name(), "cpu");
  EXPECT_EQ(device->hardware_key(), "cpu");
  EXPECT_TRUE(device->interpreted());
  DeviceBuffer buffer = device->allocate(10, "output y");
  EXPECT_EQ(device->check_guards(buffer), "");
  buffer.data[10] = std::byte{1};
  EXPECT_NE(device->check_guards(buffer).find("after output y"), std::string::npos);
  buffer.data[10] = buffer.data[11];
  EXPECT_EQ(device->check_guards(buffer), "");
  buffer.data[-1] = std::byte{1};
  EXPECT_NE(device->check_guards(buffer).find("before output y"), std::string::npos);
  device->release(buffer);
  EXPECT_EQ(buffer.base, nullptr);
  device->release(buffer);  // a no-op on an empty buffer
}

TEST(CpuDevice, HashSeesEveryByteAndFillPoisons) {
  auto device = open_device("cpu");
  DeviceBuffer buffer = device->allocate(4 * 33, "input x");
  device->fill_words(buffer, 0);
  const auto zero_hash = device->hash(buffer);
  buffer.data[4 * 33 - 1] = std::byte{1};
  EXPECT_NE(device->hash(buffer), zero_hash);
  device->fill_words(buffer, kPoisonWord);
  std::uint32_t word = 0;
  std::memcpy(&word, buffer.data + 4 * 32, 4);
  EXPECT_EQ(word, kPoisonWord);
  EXPECT_EQ(device->check_guards(buffer), "");
  device->release(buffer);
}

TEST(CpuDevice, OverlapIsDetected) {
  auto device = open_device("cpu");
  DeviceBuffer a = device->allocate(64, "a");
  DeviceBuffer b = device->allocate(64, "b");
  EXPECT_FALSE(buffers_overlap(a, b));
  DeviceBuffer view = a;
  view.data += 32;
  EXPECT_TRUE(buffers_overlap(a, view));
  device->release(a);
  device->release(b);
}

TEST(DeviceSpec, CudaIsUnavailableInTheCpuBuildAndBadSpecsAreErrors) {
  EXPECT_TRUE(cpu_device_supported());
  EXPECT_THROW(open_device("cuda"), NoDeviceError);
  EXPECT_THROW(open_device("cuda:1"), NoDeviceError);
  EXPECT_EQ(open_device("auto")->name(), "cpu");
  try {
    open_device("tpu");
    FAIL();
  } catch (const NoDeviceError&) {
    FAIL() << "a malformed spec is not a missing device";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown device 'tpu'"), std::string::npos);
  }
  EXPECT_THROW(open_device("cuda:x"), Error);
}

// The parent of a run holds a description, not the device: the same facts
// as the opened device gives, and for a device spec the same answers.
TEST(DeviceSpec, ADescriptionSaysWhatTheOpenedDeviceSays) {
  const DeviceDescription described = describe_device("cpu");
  const auto device = open_device("cpu");
  EXPECT_EQ(described.name, device->name());
  EXPECT_EQ(described.hardware_key, device->hardware_key());
  EXPECT_EQ(described.environment, device->environment());
  EXPECT_EQ(described.interpreted, device->interpreted());
  EXPECT_EQ(described.default_timeout_s, device->default_timeout_s());
  EXPECT_EQ(described.clock_name, device->clock_name());
  EXPECT_EQ(described.memory_bytes, device->memory_bytes());
  EXPECT_EQ(describe_device("auto").name, "cpu");
  EXPECT_THROW(describe_device("cuda"), NoDeviceError);
  EXPECT_THROW(describe_device("cuda:1"), NoDeviceError);
  EXPECT_THAT(test::error_of([] { describe_device("tpu"); }), testing::HasSubstr("unknown device 'tpu'"));
}

}  // namespace
}  // namespace kg
