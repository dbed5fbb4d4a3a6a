#pragma once
// Pieces of the runner shared between its source files; not a public API.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernelgate/device.hpp"
#include "kernelgate/result.hpp"
#include "kernelgate/runner.hpp"
#include "kernelgate/strict_reference.hpp"

namespace kg::detail {

inline CheckResult make_check(std::string name, Outcome outcome, std::string message = {},
                              std::string rule = {}) {
  return CheckResult{.name = std::move(name), .outcome = outcome, .message = std::move(message),
                     .rule = std::move(rule)};
}

// The number of elements of a tensor of this shape.
inline std::int64_t element_count(const std::vector<std::int64_t>& shape) {
  std::int64_t count = 1;
  for (auto extent : shape) count *= extent;
  return count;
}

// A workload's strict-FP32 GPU reference, run on the inputs a candidate was
// given, into an output and a workspace of its own (strict_reference_run.cpp).
class StrictReferenceRun {
 public:
  StrictReferenceRun(const StrictReference& reference, Device& device, const LaunchArgs& candidate_args);
  ~StrictReferenceRun();
  StrictReferenceRun(const StrictReferenceRun&) = delete;
  StrictReferenceRun& operator=(const StrictReferenceRun&) = delete;

  const std::string& summary() const { return reference_.summary; }
  // The reference's whole output for the inputs now in the candidate's input buffers.
  std::vector<float> output();

 private:
  const StrictReference& reference_;
  Device& device_;
  LaunchArgs args_;
  DeviceBuffer output_, workspace_;
};

// CI's GITHUB_SHA, else the source tree's git_revision_of_tree, else empty
// (git_revision.cpp).
std::string current_git_revision();
// The HEAD of the git work tree at `directory`, with "-dirty" appended when
// the tree has changes HEAD does not hold; empty outside a work tree.
std::string git_revision_of_tree(const std::string& directory);

// Samples the work `enqueue` puts on the device's stream with the protocol of
// `options` (defaults filled in from the device) and returns the statistics.
LatencyStats measure_latency(Device& device, const std::function<void()>& enqueue,
                             const TimingOptions& options);

// The request a parent writes for a child: everything run_child needs.
nlohmann::ordered_json make_child_request(const Suite& suite, const Candidate& candidate,
                                          const Device& device, const Axes& axes,
                                          const RunOptions& options);

// Runs the candidate's child process with the watchdog and returns its result;
// a crash or a hang becomes a `crashed` or `timed_out` result.
CandidateResult run_in_child(const Candidate& candidate, const nlohmann::ordered_json& request,
                             double timeout_s, const std::filesystem::path& executable);

// "SIGSEGV (segmentation fault)" for a signal number.
std::string describe_signal(int signal_number);

}  // namespace kg::detail
