#pragma once
// Pieces of the runner shared between its source files; not a public API.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernelgate/detail/device.hpp"
#include "kernelgate/detail/reference.hpp"
#include "kernelgate/detail/result.hpp"
#include "kernelgate/detail/runner.hpp"
#include "kernelgate/strict_reference.hpp"

namespace kg::detail {

// Keeps why a registration (a candidate's or a strict reference's) was
// refused during static initialisation; check_candidate_registry reports the
// first (candidate_registry.cpp).
void refuse_registration(std::string why);
// A registration's workload or id (`what`): the name it gives, else the one
// its path gives (named_by_site); throws kg::Error when they differ or
// neither gives one.
std::string name_by_site(std::string name, const char* from_path, const char* what, const RegistrationSite& site);

// Text a candidate controls (its output, an exception's message) made safe
// for a one-line message and for JSON: printable ASCII kept, every other
// byte a '?'.
inline std::string printable(const std::string& text) {
  std::string safe = text;
  for (char& c : safe)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
  return safe;
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

// CI's GITHUB_SHA, else git_revision_of_tree of the checkout, else empty
// (git_revision.cpp).
std::string current_git_revision(const std::filesystem::path& checkout_folder);
// The HEAD of the git work tree at `directory`, with "-dirty" appended when
// the tree has changes HEAD does not hold; empty outside a work tree.
std::string git_revision_of_tree(const std::string& directory);

// `context` ("under thread order reverse: ") put before the message of each
// failed check of a failed result, and its outcome decided again: the
// failure says where it happened.
void prefix_failures(CandidateResult& result, const std::string& context);

// Interpret mode's counters as a JSON object of name: count (the child's
// reply, a report's model.counters), in the object's order.
std::vector<std::pair<std::string, std::uint64_t>> counters_from_json(const JsonReader& object);

void sleep_seconds(double seconds);

// The timing loop of a protocol (TimingOptions, defaults filled in from the
// device kind): warm_up(n) runs n untimed launches, take_sample() one timed
// and checked launch, returning its milliseconds and clocks. A sample the
// throttle rule finds throttled (kernelgate/detail/throttle_rule.hpp) is discarded,
// then wait(seconds) lets the clock recover.
LatencyStats measure_latency(const std::function<void(int)>& warm_up, const std::function<TimedLaunch()>& take_sample,
                             const TimingOptions& options, bool slow_device, const std::string& clock,
                             const std::function<void(double)>& wait = sleep_seconds);

// What a check found that ends the checks of a candidate. Thrown by the
// parent's checks and by a session whose child died or hung ("isolation").
struct Finding {
  Outcome outcome;
  std::string check;  // "contract", "equivalence" or "isolation"
  std::string rule;
  std::string message;
};

// `result` with the finding as its outcome and message, and the checks that
// finding leaves: the isolation check alone, or the failed check with the
// ones it cut short marked skipped. No latency survives a failure.
CandidateResult failed_result(CandidateResult result, const Finding& finding);

// The float64 reference at the points the parent compares, for input sets A
// and B. Computed once per run in the parent, where no candidate code runs.
// At full size the points are drawn from a random source the candidate
// cannot know (the first and last element always included).
// The float64 reference a candidate's outputs are compared with. Small
// outputs: every element of both input sets, computed once per run. Larger
// ones: the input sets themselves, so that each candidate's checker can
// evaluate the reference at points it draws fresh for every question
// (reference_point), none disclosed before it is asked and none asked twice.
struct ReferencePoints {
  std::int64_t numel = 0;
  bool whole = true;                   // every element is compared
  std::vector<std::int64_t> indices;   // whole: 0 .. numel-1
  std::vector<double> want_a, want_b;  // whole: the reference at indices
  Tensors set_a, set_b;                // sampled: the inputs, for reference_point
};
ReferencePoints compute_reference_points(const Suite& suite, const Axes& axes, const RunOptions& options);

// What the parent tells the candidate's side when it opens it.
struct SessionRequest {
  std::string device;        // the device spec the child opens
  std::string thread_order;  // interpret mode; "" outside it
  std::string tensor_cores;  // interpret mode's tensor-core arithmetic; "" outside it
  std::string nonce;         // echoed by close: the reply came from the child we started
};

class CandidateSession;

// The checks and the timing of one candidate on `device`, decided here from
// what the session observed (check_candidate.cpp).
CandidateResult check_through_session(const Suite& suite, const Candidate& candidate, const Axes& axes,
                                      const RunOptions& options, const ReferencePoints& reference,
                                      const SessionRequest& request, const DeviceDescription& device,
                                      CandidateSession& session);

// Runs the candidate in a child process under the watchdog and checks it
// there; a crash or a hang becomes a `crashed` or `timed_out` result.
CandidateResult run_in_child(const Suite& suite, const Candidate& candidate, const Axes& axes,
                             const RunOptions& options, const ReferencePoints& reference,
                             const DeviceDescription& device, const std::string& thread_order, double timeout_s);

// "SIGSEGV (segmentation fault)" for a signal number.
std::string describe_signal(int signal_number);

}  // namespace kg::detail
