#pragma once
// The gate policy options of `kernelgate run` and `kernelgate gate` (and the
// one `kernelgate compare` takes): each overrides the suite's GatePolicy
// (suite.hpp) for this run only. docs/baselines.md explains them.
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "command.hpp"

#include "kernelgate/detail/gate.hpp"

namespace kg::cli {

// One policy override: `--name VALUE` sets `target`, in the help's gate
// policy group; the caller adds the value's check (number_in).
template <typename T>
CLI::Option* add_gate_override(CLI::App& command, const std::string& name, std::optional<T>& target,
                               const std::string& description) {
  return command.add_option_function<T>(name, [&target](T value) { target = value; }, description)
      ->group("Gate policy (default: the suite's)");
}

inline void add_gate_options(CLI::App& command, GatePolicyOverrides& overrides, OptionErrors* deferred) {
  add_gate_override(command, "--latency-tolerance", overrides.latency_tolerance,
                    "relative slowdown allowed before `regressed`, e.g. 0.05")
      ->check(number_in(0, kMaxLatencyTolerance, "a fraction", deferred, "--latency-tolerance"));
  add_gate_override(command, "--noise-multiplier", overrides.noise_multiplier,
                    "times the measured standard deviation added to the tolerance")
      ->check(number_in(0, kMaxNoiseMultiplier, "a number", deferred, "--noise-multiplier"));
  add_gate_override(command, "--max-age-days", overrides.max_age_days, "a measured record older than this is stale")
      ->check(number_in(0, kMaxAgeDays, "a number of days", deferred, "--max-age-days"));
  add_gate_override(command, "--win-is-stale", overrides.win_is_stale,
                    "true|false: a speed-up beyond tolerance makes the record stale (asks for a publish)");
  command
      .add_flag("--gate-interpret-latency", overrides.gate_wall_clock,
                "also gate interpret-mode (wall clock) latencies, which are informational by default")
      ->group("Gate policy (default: the suite's)");
}

}  // namespace kg::cli
