// The order of a timed sample on a GPU (timed_region.hpp), with a device
// that records each step: only the device's work on the held stream lies
// between the events, nothing of the host's between the flush and the start
// event, and the second clock reading comes before the device goes idle.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "timed_region.hpp"

namespace kg::detail {
namespace {

using testing::ElementsAre;

class RecordingSteps final : public TimedRegionSteps {
 public:
  std::vector<std::string> steps;
  std::vector<ClockReading> clocks{{1980, 0x0}, {1755, 0x4}};
  bool expired = false;

  ClockReading read_clock() override {
    steps.push_back("read_clock");
    return clocks.at(readings++);
  }
  void flush_caches() override { steps.push_back("flush_caches"); }
  void hold_stream() override { steps.push_back("hold_stream"); }
  void record_start() override { steps.push_back("record_start"); }
  void record_stop() override { steps.push_back("record_stop"); }
  void release_stream() override { steps.push_back("release_stream"); }
  void wait_for_stop() override { steps.push_back("wait_for_stop"); }
  void wait_for_device() override { steps.push_back("wait_for_device"); }
  double elapsed_ms() override { return 0.125; }
  bool hold_expired() override { return expired; }

 private:
  std::size_t readings = 0;
};

TEST(TimedRegion, TheEventsHoldOnlyTheDevicesWorkOnTheHeldStream) {
  RecordingSteps device;
  run_timed_region(device, [&] { device.steps.push_back("enqueue"); }, 1980, 0);
  EXPECT_THAT(device.steps,
              ElementsAre("read_clock", "flush_caches", "hold_stream", "record_start", "enqueue", "record_stop",
                          "release_stream", "wait_for_stop", "read_clock", "wait_for_device"));
}

// A launch that throws (a refused launch configuration, say) still
// releases the stream: the checks after it must not wait out the hold.
TEST(TimedRegion, ALaunchThatThrowsStillReleasesTheStream) {
  RecordingSteps device;
  EXPECT_THROW(run_timed_region(device, [] { throw Error("kernel launch failed"); }, 1980, 0), Error);
  EXPECT_THAT(device.steps, ElementsAre("read_clock", "flush_caches", "hold_stream", "record_start",
                                        "release_stream"));
}

TEST(TimedRegion, TheSampleCarriesTheLowerClockAndBothReadingsReasons) {
  RecordingSteps device;
  device.expired = true;
  const TimedLaunch sample = run_timed_region(device, [] {}, 1980, 1410);
  EXPECT_DOUBLE_EQ(sample.ms, 0.125);
  EXPECT_EQ(sample.sm_clock_mhz, 1755);
  EXPECT_EQ(sample.sm_clock_max_mhz, 1980);
  EXPECT_EQ(sample.sm_clock_set_mhz, 1410);
  EXPECT_EQ(sample.clock_event_reasons, 0x4);
  EXPECT_GE(sample.busy_after_ms, 0.0);
  EXPECT_TRUE(sample.hold_expired);
}

TEST(TimedRegion, AnUnknownReadingLeavesTheClockAndReasonsUnknown) {
  RecordingSteps device;
  device.clocks = {{1980, 0x2}, {0, -1}};  // NVML failed on the second reading
  const TimedLaunch sample = run_timed_region(device, [] {}, 1980, 0);
  EXPECT_EQ(sample.sm_clock_mhz, 0);
  EXPECT_EQ(sample.clock_event_reasons, -1);
  EXPECT_FALSE(sample.hold_expired);
}

}  // namespace
}  // namespace kg::detail
