#pragma once
// The rule of the GPU stream audit, apart from CUPTI so it is unit-tested in
// every build: given the device work recorded while a candidate ran, did it
// all run on the harness's stream, and none of it after the candidate's work
// there had finished? (docs/gpu-runner.md, "Stream audit")
#include <cstdint>
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

}  // namespace kg
