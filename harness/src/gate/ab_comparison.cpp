// compare_runs (ab_comparison.hpp): head's runner records against base's,
// candidate by candidate, with the gate's sample comparison.
#include "kernelgate/detail/ab_comparison.hpp"

#include <cstdio>

#include "kernelgate/detail/baseline.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/floor_rule.hpp"
#include "kernelgate/detail/gate.hpp"

namespace kg {

namespace {

// What the comparison judges: a judgeable latency with its samples.
const LatencyStats* timed(const CandidateResult* candidate) {
  const LatencyStats* latency = judgeable_latency(candidate);
  return latency && !latency->samples_ms.empty() ? latency : nullptr;
}

}  // namespace

RunAB compare_runs(const Suite& suite, RunResult base, RunResult head, const GatePolicy& policy) {
  auto differ = [&](const std::string& what, const std::string& b, const std::string& h) {
    throw Error("base and head of " + head.workload + " differ in " + what + " (base " + b + ", head " + h +
                "): an A/B comparison needs both timed the same way");
  };
  if (base.workload != head.workload) differ("workload", base.workload, head.workload);
  if (base.hardware != head.hardware) differ("hardware key", base.hardware, head.hardware);
  if (base.identity != head.identity)
    differ("workload identity", base.identity.substr(0, 12), head.identity.substr(0, 12));
  if (base.preset != head.preset || base.axes != head.axes)
    differ("axes", "preset '" + base.preset + "', " + format_axes(base.axes),
           "preset '" + head.preset + "', " + format_axes(head.axes));
  if (suite.id != head.workload)
    throw Error("the suite given for the A/B of " + head.workload + " is " + suite.id + "'s");
  apply_floor_rule(suite, base);
  apply_floor_rule(suite, head);

  const LatencyStats* base_eager = timed(find_candidate(base, kEagerBaselineId));
  const LatencyStats* head_eager = timed(find_candidate(head, kEagerBaselineId));
  const SampleComparisonPolicy sample_policy = sample_comparison_policy(policy);

  RunAB result{head.workload, head.hardware, {}};
  for (const auto& candidate : head.candidates) {
    CandidateAB ab;
    ab.implementation = candidate.id;
    const LatencyStats* now = timed(&candidate);
    const LatencyStats* before = timed(find_candidate(base, candidate.id));
    if (is_failure(candidate.outcome)) {
      ab.outcome = candidate.outcome;
      ab.message = "head " + std::string(to_string(candidate.outcome)) + ": " + candidate.message;
    } else if (!now) {
      ab.outcome = Outcome::skipped;
      ab.message = "head did not time it (" + std::string(to_string(candidate.outcome)) + ")";
    } else if (!before) {
      ab.outcome = Outcome::new_record;
      ab.message = "base has no timed result for it";
    } else {
      ab.relative_to_eager = base_eager && head_eager && candidate.id != kEagerBaselineId;
      const SampleComparison c =
          compare_samples(before->samples_ms, now->samples_ms, sample_policy,
                          ab.relative_to_eager ? base_eager->samples_ms : std::vector<double>{},
                          ab.relative_to_eager ? head_eager->samples_ms : std::vector<double>{});
      ab.comparison = c;
      ab.message = describe_ratio(c, "base's", ab.relative_to_eager) + "; " + std::to_string(now->n) + " vs " +
                   std::to_string(before->n) + " samples";
      ab.outcome = sample_outcome(c.verdict, policy);
      if (c.verdict == SampleVerdict::inconclusive && !policy.inconclusive_fails) {
        // Appended piecewise: GCC 12 warns falsely on "literal" + std::string temporaries.
        ab.message += " (inconclusive; ";
        ab.message += kInconclusiveWarning;
        ab.message += ")";
      }
      if (now->clock == "wall" && !policy.gate_wall_clock) {
        ab.outcome = Outcome::passed;
        ab.message += ": interpret-mode wall-clock time is informational, not judged";
      }
    }
    result.candidates.push_back(std::move(ab));
  }
  return result;
}

int ab_exit_code(const std::vector<RunAB>& comparisons) {
  for (const RunAB& run : comparisons)
    for (const CandidateAB& c : run.candidates)
      if (is_failure(c.outcome)) return 1;
  return 0;
}

}  // namespace kg
