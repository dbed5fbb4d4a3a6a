// A candidate's outcome, decided in one place from its checks (result.hpp).
#include "kernelgate/detail/result.hpp"

namespace kg {

bool is_failure(Outcome outcome) { return outcome_severity(outcome) > 0; }

int outcome_severity(Outcome outcome) {
  switch (outcome) {
    case Outcome::crashed: return 10;
    case Outcome::timed_out: return 9;
    case Outcome::contract_violation: return 8;
    case Outcome::incorrect: return 7;
    case Outcome::regressed: return 6;
    case Outcome::inconclusive: return 5;
    case Outcome::unreliable: return 4;
    case Outcome::stale: return 3;
    default: return 0;
  }
}

OutcomeDecision decide_outcome(const std::vector<CheckResult>& checks) {
  if (checks.empty()) return {Outcome::skipped, ""};
  // The worst failure, said by the first check that has it.
  const CheckResult* worst = nullptr;
  for (const CheckResult& check : checks)
    if (is_failure(check.outcome) && (!worst || outcome_severity(check.outcome) > outcome_severity(worst->outcome)))
      worst = &check;
  if (worst) return {worst->outcome, worst->message};
  for (const Outcome kind : {Outcome::not_supported, Outcome::new_record})
    for (const CheckResult& check : checks)
      if (check.outcome == kind) return {kind, kind == Outcome::not_supported ? check.message : ""};
  return {Outcome::passed, ""};
}

void decide(CandidateResult& result) {
  OutcomeDecision decision = decide_outcome(result.checks);
  result.outcome = decision.outcome;
  result.message = std::move(decision.message);
}

const LatencyStats* judgeable_latency(const CandidateResult* candidate) {
  if (!candidate || is_failure(candidate->outcome) || candidate->outcome == Outcome::not_supported ||
      candidate->outcome == Outcome::skipped)
    return nullptr;
  const auto& latency = candidate->latency;
  if (!latency || latency->n < 1 || !(latency->mean_ms > 0)) return nullptr;
  return &*latency;
}

}  // namespace kg
