// The gate's rounds (gate_rounds.hpp).
#include <algorithm>

#include "kernelgate/detail/gate.hpp"
#include "kernelgate/detail/gate_rounds.hpp"

namespace kg {

void retime_inconclusive(const Suite& suite, const DeviceDescription& device, RunOptions options,
                         const GatePolicy& policy, const BaselineFile* baseline, RunResult& run) {
  GateOptions gate_options;
  gate_options.policy = policy;
  gate_options.today_days = today_utc_days();
  if (options.thread_orders.size() > 1) options.thread_orders.resize(1);
  for (int round = 2; round <= policy.max_rounds; ++round) {
    const GateVerdict verdict = evaluate_gate(run, baseline, gate_options);
    options.candidate_ids.clear();
    bool with_eager = false;
    for (const auto& gate : verdict.candidates)
      if (gate.comparison && gate.comparison->verdict == SampleVerdict::inconclusive) {
        options.candidate_ids.push_back(gate.implementation);
        with_eager = with_eager || gate.relative_to_eager;
      }
    if (options.candidate_ids.empty()) return;
    if (with_eager && std::find(options.candidate_ids.begin(), options.candidate_ids.end(),
                                std::string(kEagerBaselineId)) == options.candidate_ids.end())
      options.candidate_ids.insert(options.candidate_ids.begin(), std::string(kEagerBaselineId));
    add_timing_round(run, run_workload(suite, device, options));
  }
}

}  // namespace kg
