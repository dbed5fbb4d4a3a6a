#pragma once
// The gate's rounds: a candidate whose sample comparison stays inconclusive
// is timed again, so that `kernelgate run` and any other caller of the
// library judge the same samples (docs/gate-statistics.md). The only part of
// the gate that runs candidates; the verdicts themselves are gate.hpp's.
#include "kernelgate/detail/baseline.hpp"
#include "kernelgate/detail/runner.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg {

// While a candidate's sample comparison against `baseline` is inconclusive,
// runs it again (checked and timed, under the first of options'
// thread orders, every order having been checked in the first round), with
// cudnn_eager beside it when it is compared relative to eager, and adds the
// round's samples to `run`: up to policy.max_rounds rounds in all.
void retime_inconclusive(const Suite& suite, const DeviceDescription& device, RunOptions options,
                         const GatePolicy& policy, const BaselineFile* baseline, RunResult& run);

}  // namespace kg
