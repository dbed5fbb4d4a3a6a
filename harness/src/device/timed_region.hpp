#pragma once
// The order of one timed sample on a GPU, apart from the CUDA calls that
// carry it out, so that the order is unit-tested in every build
// (tests/device/timed_region_test.cpp) and the cuda device cannot drift
// from it (docs/gpu-runner.md, "Timing"):
//
//   read the clock      before anything of the sample, never between the
//                       flush and the start event
//   flush the L2        enqueued on the harness stream
//   hold the stream     a kernel that waits for the host's word, so the
//   record start        launch below is enqueued while nothing runs and the
//   enqueue the launch  events time the device's work alone, not the host's
//   record stop         work to enqueue it (nvbench does the same)
//   release the stream  also when the launch throws, so nothing waits on
//                       a hold that no one will release
//   wait for stop
//   read the clock      right after the timed work, while the device is
//                       still as the launch left it
//   wait for the device how long it stays busy: work the launch left on
//                       another stream (kg::judge_busy_after_timing)
#include <functional>

#include "kernelgate/detail/device.hpp"

namespace kg::detail {

// The SM clock read through NVML, and why it is there (-1: unknown).
struct ClockReading {
  int sm_mhz = 0;
  std::int64_t event_reasons = -1;
};

// What a device does at each step; the cuda device's implementation calls
// the CUDA runtime and NVML, a test's records the order.
class TimedRegionSteps {
 public:
  virtual ~TimedRegionSteps() = default;
  virtual ClockReading read_clock() = 0;
  virtual void flush_caches() = 0;
  virtual void hold_stream() = 0;
  virtual void record_start() = 0;
  virtual void record_stop() = 0;
  virtual void release_stream() = 0;  // never throws: it also runs while an exception unwinds
  virtual void wait_for_stop() = 0;
  virtual void wait_for_device() = 0;
  virtual double elapsed_ms() = 0;   // between the start and stop events
  virtual bool hold_expired() = 0;   // the hold gave up waiting for the release
};

// One timed sample of the work `enqueue` puts on the harness stream. The
// clocks: the lower of the two readings, and the reasons of both together;
// `sm_clock_max_mhz` and `sm_clock_set_mhz` are the device's boost clock and
// the clock it is set to run at (0: none set), passed through.
TimedLaunch run_timed_region(TimedRegionSteps& steps, const std::function<void()>& enqueue, int sm_clock_max_mhz,
                             int sm_clock_set_mhz);

}  // namespace kg::detail
