#pragma once
// The published history of each implementation in a baseline file, and the
// change points in it: a slowdown (or a speed-up) that several published
// records confirm, which the gate, comparing one run with the latest record,
// cannot see when it came in steps each under the tolerance.
//
// Method (docs/gate-statistics.md, "Change points in the history"): the
// series is each record's median latency (the mean when a record has no
// median, as reported ones), in log space. E-divisive's energy statistic
// proposes the splits, recursively, each side at least two records (a new
// level is confirmed by a second record); each proposed split is then tested
// between its neighbouring splits by Student's t-test, and the weakest
// failing one is dropped until every split left has p <= max_p_value and
// levels whose geometric means differ by at least min_relative_change. No
// permutations: the same file always gives the same points.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "kernelgate/detail/baseline.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg {

struct ChangePointPolicy {
  double min_relative_change = 0.05;  // the suite's latency tolerance
  double max_p_value = 0.01;
};
// A suite's policy: the smallest change is its latency tolerance.
ChangePointPolicy change_point_policy(const GatePolicy& gate);

struct ChangePoint {
  std::size_t index = 0;  // the first value of the new level
  double ratio = 1;       // geometric mean after / before
  double p_value = 1;     // two-sided, Student's t on the log values
};

// Change points of a series of latencies (all > 0), by index, ascending.
std::vector<ChangePoint> find_change_points(const std::vector<double>& values, const ChangePointPolicy& policy);

// The two-sided p-value of Student's t statistic with `degrees` degrees of
// freedom (degrees >= 1).
double student_t_two_sided_p(double t, double degrees);

struct HistoryPoint {
  BaselineRecord record;
  double value_ms = 0;  // the series' statistic of this record
  // Measured at another workload identity, preset, axes or precision than the
  // point before: the series restarts here and no change point spans it.
  bool comparison_restarts = false;
  std::optional<ChangePoint> change;  // set on the first point of a new level
};

struct ImplementationHistory {
  std::string implementation;
  Trust trust = Trust::measured;
  std::string statistic;             // "median_ms" or "mean_ms"
  std::vector<HistoryPoint> points;  // oldest first
  // The latest point over the first comparable one (the same identity,
  // preset, axes and precision as the latest): the drift since then.
  double drift = 1;
  std::size_t drift_points = 1;  // how many points that drift spans
};

// Every implementation of the file (each trust apart) with its records over
// time, in the order they were the stored record: those publishes replaced
// (the file's history, oldest first), then the current one. Implementations
// come in the order of the file's records.
std::vector<ImplementationHistory> published_history(const BaselineFile& file, const ChangePointPolicy& policy);

}  // namespace kg
