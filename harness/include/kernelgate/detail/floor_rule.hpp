#pragma once
// A time no hardware can reach is a finding, not a record (docs/baselines.md,
// "Below the floor"). The floor of a workload on a hardware key is a lower
// bound for any implementation of a precision (kernelgate/detail/hardware.hpp,
// docs/roofline.md "Floors"); a candidate whose median is under a share of
// it did not do the workload's work in the time its samples say, whatever
// its process reported. `run` and `gate` (conclude_run), `compare` and
// `publish` apply the same rule.
#include <optional>
#include <string>

#include "kernelgate/detail/result.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg {

// A median under this share of the floor is below_floor. The floor rests on
// datasheet peaks at the boost clock and an L2 bandwidth from a published
// table, not yet checked on these cards; half of it leaves room for those
// figures to be off by up to 2x, far more than a clock or a table errs.
inline constexpr double kFloorSlack = 0.5;
inline constexpr const char* kBelowFloorRule = "below_floor";

// The floor of `precision` for the suite at `axes` on a hardware key, or
// nullopt where the key has none: cpu (interpret mode times a CPU), the
// simulated GPU's keys and keys without peaks. Throws kg::Error naming the
// axes when they are not the suite's (an edited results file or report).
std::optional<double> latency_floor_ms(const Suite& suite, const Axes& axes, const std::string& hardware,
                                       const std::string& precision);

// Why `latency` (its median, or its mean where it gives no median) cannot
// be a time of this workload, precision and hardware ("" when it can, or
// where there is no floor).
std::string below_floor(const Suite& suite, const Axes& axes, const std::string& hardware,
                        const std::string& precision, const LatencyStats& latency);

// Every timed candidate of `run` not already failed whose median is below
// its floor fails its contract check with the rule below_floor; its latency
// stays as the evidence, and a failed candidate is never gated, ranked or
// published.
void apply_floor_rule(const Suite& suite, RunResult& run);

}  // namespace kg
