#pragma once
// The rules of the GPU stream audit, apart from CUPTI and the GPU so they are
// unit-tested in every build (docs/gpu-runner.md, "Stream audit"): given the
// device work recorded while a candidate ran, did it all run on the
// harness's stream, and none of it after the candidate's work there had
// finished? And given how long the device stayed busy after each timed
// sample, did the candidate move work out of the timed region?
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kg {

struct DeviceActivity {
  std::string what;  // "kernel <name>", "memcpy of N bytes", "memset of N bytes"
  std::uint32_t stream_id = 0;
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
};

// Empty when the work obeyed the contract; otherwise one line naming the
// first offending piece of work and why.
std::string judge_stream_audit(const std::vector<DeviceActivity>& activities, std::uint32_t harness_stream_id,
                               std::uint64_t harness_done_ns);

// Timed samples are not audited on a GPU (CUPTI would disturb their times),
// so a candidate could put its work on a stream of its own once timed: the
// events on the harness stream would then time almost nothing. After each
// timed sample the cuda device waits for the whole device and measures how
// long that took (TimedLaunch::busy_after_ms): about nothing for work on the
// harness stream, since the stop event already waited for it.
//
// Judged on the medians over the samples, so that a rare slow wake-up of the
// host is no finding: a finding when the device stayed busy more than
// kBusyAfterFloorMs and more than kBusyAfterFraction of the timed time.
inline constexpr double kBusyAfterFloorMs = 0.05;
inline constexpr double kBusyAfterFraction = 0.25;
struct BusyAfterTiming {
  double busy_median_ms = 0;   // over the finite values; 0 when there is none
  double timed_median_ms = 0;
  std::string finding;         // empty when the samples show no such work; otherwise one line
};
BusyAfterTiming judge_busy_after_timing(const std::vector<double>& timed_ms,
                                        const std::vector<double>& busy_after_ms);

// Whether the stream audit may use the CUPTI library loaded, by the API
// version it reports at run time (cuptiGetVersion: 22 for CUDA 12.4, 26 for
// 12.8, 130001 for 13.0 Update 1), which can differ from the headers the
// build used. Nothing when it may; otherwise one line naming the version and
// what to install. Refused: versions older than the oldest whose records the
// audit is checked against (22), and CUPTI 13.0.0 (130000), which can
// deadlock when an activity kind is disabled, as the audit does after every
// audited launch, and crash in cuptiActivityFlushAll.
inline constexpr std::uint32_t kOldestAuditedCuptiApi = 22;
inline constexpr std::uint32_t kCuda13GaCuptiApi = 130000;
std::optional<std::string> cupti_version_problem(std::uint32_t api_version);

}  // namespace kg
