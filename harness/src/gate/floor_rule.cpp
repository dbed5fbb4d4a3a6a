// A time no hardware can reach (floor_rule.hpp).
#include "kernelgate/detail/floor_rule.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/gpu_identity.hpp"
#include "kernelgate/detail/hardware.hpp"

namespace kg {

std::optional<double> latency_floor_ms(const Suite& suite, const Axes& axes, const std::string& hardware,
                                       const std::string& precision) {
  if (hardware.empty() || hardware == kCpuHardwareKey || is_simulated_hardware(hardware)) return std::nullopt;
  const HardwareSpec* spec = find_hardware(hardware);
  if (!spec) return std::nullopt;
  double floor = 0;
  try {
    floor = floors(suite, axes, *spec).bound_ms(precision);
  } catch (const Error& e) {
    throw Error("axes " + format_axes(axes) + " are not those of workload " + suite.id + " (" + e.what() +
                "): no floor to judge its times by");
  }
  return floor > 0 ? std::optional<double>(floor) : std::nullopt;
}

std::string below_floor(const Suite& suite, const Axes& axes, const std::string& hardware,
                        const std::string& precision, const LatencyStats& latency) {
  // A record without a median (published figures need not give one) is
  // judged by its mean.
  const double median_ms = std::isfinite(latency.median_ms) ? latency.median_ms : latency.mean_ms;
  const std::optional<double> floor = latency_floor_ms(suite, axes, hardware, precision);
  if (!floor || median_ms >= kFloorSlack * *floor) return "";
  char text[400];
  std::snprintf(text, sizeof text,
                "%s: a median of %.6g ms is under %g of the %s floor of %.6g ms on %s, the least time any "
                "implementation needs for the workload's bytes and FLOPs: not a time of its work",
                kBelowFloorRule, median_ms, kFloorSlack, precision.c_str(), *floor, hardware.c_str());
  return text;
}

void apply_floor_rule(const Suite& suite, RunResult& run) {
  for (CandidateResult& candidate : run.candidates) {
    if (!candidate.latency || is_failure(candidate.outcome) || candidate.latency->n < 1) continue;
    std::string finding = below_floor(suite, run.axes, run.hardware, candidate.precision, *candidate.latency);
    if (finding.empty()) continue;
    std::erase_if(candidate.checks, [](const CheckResult& check) { return check.name == kContractCheck; });
    candidate.checks.push_back(
        make_check(kContractCheck, Outcome::contract_violation, std::move(finding), kBelowFloorRule));
    decide(candidate);
  }
}

}  // namespace kg
