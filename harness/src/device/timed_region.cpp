// One timed sample in the order timed_region.hpp gives.
#include "timed_region.hpp"

#include <algorithm>
#include <chrono>

namespace kg::detail {
namespace {

// The lower clock: a sample is only as fast as the slowest clock it saw.
int lower_known(int a, int b) { return a > 0 && b > 0 ? std::min(a, b) : 0; }

// Both readings' reasons; unknown unless the driver answered both times.
std::int64_t both_reasons(std::int64_t a, std::int64_t b) { return a >= 0 && b >= 0 ? (a | b) : -1; }

// Releases the held stream when the launch's part of the region ends, by
// its end or by an exception.
class ReleaseOnExit {
 public:
  explicit ReleaseOnExit(TimedRegionSteps& steps) : steps_(steps) {}
  ~ReleaseOnExit() { steps_.release_stream(); }
  ReleaseOnExit(const ReleaseOnExit&) = delete;
  ReleaseOnExit& operator=(const ReleaseOnExit&) = delete;

 private:
  TimedRegionSteps& steps_;
};

}  // namespace

TimedLaunch run_timed_region(TimedRegionSteps& steps, const std::function<void()>& enqueue, int sm_clock_max_mhz,
                             int sm_clock_set_mhz) {
  const ClockReading before = steps.read_clock();
  steps.flush_caches();
  steps.hold_stream();
  {
    // A launch that throws must not leave the stream held until the hold
    // gives up: everything after it on the stream would wait that long.
    ReleaseOnExit release(steps);
    steps.record_start();
    enqueue();
    steps.record_stop();
  }
  steps.wait_for_stop();
  const ClockReading after = steps.read_clock();
  const auto stop_reached = std::chrono::steady_clock::now();
  steps.wait_for_device();
  const double busy_after_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - stop_reached).count();
  return {.ms = steps.elapsed_ms(),
          .sm_clock_mhz = lower_known(before.sm_mhz, after.sm_mhz),
          .sm_clock_max_mhz = sm_clock_max_mhz,
          .sm_clock_set_mhz = sm_clock_set_mhz,
          .clock_event_reasons = both_reasons(before.event_reasons, after.event_reasons),
          .busy_after_ms = busy_after_ms,
          .hold_expired = steps.hold_expired()};
}

}  // namespace kg::detail
