#pragma once
// Same-job A/B: the runner records of two builds (base and head) timed on
// the same machine, judged candidate by candidate with the gate's sample
// comparison (sample_comparison.hpp). Unlike the stored baselines, both
// sides share the machine, its clocks and its neighbours, so the comparison
// sees small changes the stored records cannot. Data here, printing in
// ab_markdown (report.hpp); `kernelgate compare` is the command
// (docs/gate-statistics.md).
#include <optional>
#include <string>
#include <vector>

#include "kernelgate/detail/result.hpp"
#include "kernelgate/detail/sample_comparison.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg {

struct CandidateAB {
  std::string implementation;
  // passed, regressed or inconclusive from the comparison; new_record when
  // base has no timed passing result for it; head's own failure when head
  // failed; skipped when head was not timed.
  Outcome outcome = Outcome::skipped;
  std::optional<SampleComparison> comparison;
  bool relative_to_eager = false;
  std::string message;
};

struct RunAB {
  std::string workload;
  std::string hardware;
  std::vector<CandidateAB> candidates;  // in head's order
};

// Compares head against base (the same workload, hardware key, workload
// identity, preset and axes: otherwise kg::Error naming the difference),
// `suite` being that workload's. A time under its floor is judged on both
// sides first (floor_rule.hpp): head's fails, base's is no time to compare
// with. The tolerance and the inconclusive policy are the gate's.
// Interpret-mode (wall clock) samples say nothing about a GPU: they are
// compared and shown, but their verdict counts only with the policy's
// gate_wall_clock.
RunAB compare_runs(const Suite& suite, RunResult base, RunResult head, const GatePolicy& policy);

// 1 when a candidate of head regressed, failed, or stayed inconclusive
// under a policy that fails it; 0 otherwise.
int ab_exit_code(const std::vector<RunAB>& comparisons);

}  // namespace kg
