#pragma once
// The gate policy options of `kernelgate run`: each overrides the suite's
// GatePolicy (suite.hpp) for this run only. docs/baselines.md explains them.
#include <CLI/CLI.hpp>

#include "command.hpp"

#include "kernelgate/gate.hpp"

namespace kg::cli {

inline void add_gate_options(CLI::App& command, GatePolicyOverrides& overrides, OptionErrors* deferred) {
  const char* group = "Gate policy (default: the suite's)";
  command
      .add_option_function<double>(
          "--latency-tolerance", [&overrides](double value) { overrides.latency_tolerance = value; },
          "relative slowdown allowed before `regressed`, e.g. 0.05")
      ->group(group)
      ->check(number_in(0, 10, "a fraction", deferred, "--latency-tolerance"));
  command
      .add_option_function<double>(
          "--noise-multiplier", [&overrides](double value) { overrides.noise_multiplier = value; },
          "times the measured standard deviation added to the tolerance")
      ->group(group)
      ->check(number_in(0, 100, "a number", deferred, "--noise-multiplier"));
  command
      .add_option_function<int>(
          "--max-age-days", [&overrides](int value) { overrides.max_age_days = value; },
          "a measured record older than this is stale")
      ->group(group)
      ->check(number_in(0, 36500, "a number of days", deferred, "--max-age-days"));
  command
      .add_option_function<bool>(
          "--win-is-stale", [&overrides](bool value) { overrides.win_is_stale = value; },
          "true|false: a speed-up beyond tolerance makes the record stale (asks for a publish)")
      ->group(group);
  command.add_flag("--gate-interpret-latency", overrides.gate_wall_clock,
                   "also gate interpret-mode (wall clock) latencies, which are informational by default")
      ->group(group);
}

}  // namespace kg::cli
