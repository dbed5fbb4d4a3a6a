// published_history and find_change_points (history.hpp).
#include "kernelgate/detail/history.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>


namespace kg {
namespace {

// The regularised incomplete beta function I_x(a, b), by its continued
// fraction (modified Lentz), on the side where that converges fast.
double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  if (x > (a + 1) / (a + b + 2)) return 1 - incomplete_beta(b, a, 1 - x);
  const double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  constexpr double tiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  d = 1 / (std::fabs(d) < tiny ? tiny : d);
  double fraction = d;
  for (int m = 1; m <= 300; ++m) {
    for (int step = 0; step < 2; ++step) {
      // The even (step 0) and odd (step 1) terms of the fraction.
      const double numerator = step == 0 ? m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
                                         : -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
      d = 1 + numerator * d;
      d = 1 / (std::fabs(d) < tiny ? tiny : d);
      c = 1 + numerator / c;
      if (std::fabs(c) < tiny) c = tiny;
      fraction *= c * d;
      if (step == 1 && std::fabs(c * d - 1) < 1e-15) return std::exp(log_front) * fraction / a;
    }
  }
  return std::exp(log_front) * fraction / a;
}

double mean_of(const std::vector<double>& x, std::size_t begin, std::size_t end) {
  double sum = 0;
  for (std::size_t i = begin; i < end; ++i) sum += x[i];
  return sum / double(end - begin);
}

// Student's t-test (pooled variance) of x[lo, split) against x[split, hi).
double split_p_value(const std::vector<double>& x, std::size_t lo, std::size_t split, std::size_t hi) {
  const double m = double(split - lo), n = double(hi - split);
  const double degrees = m + n - 2;
  if (degrees < 1) return 1;
  const double left = mean_of(x, lo, split), right = mean_of(x, split, hi);
  double squares = 0;
  for (std::size_t i = lo; i < hi; ++i) {
    const double centre = i < split ? left : right;
    squares += (x[i] - centre) * (x[i] - centre);
  }
  const double difference = std::fabs(right - left);
  // Levels that are each exactly flat: any difference is certain.
  if (squares <= 1e-24 * (1 + difference * difference)) return difference > 0 ? 0 : 1;
  const double t = difference / std::sqrt(squares / degrees * (1 / m + 1 / n));
  return student_t_two_sided_p(t, degrees);
}

// A new level must be confirmed by a second record: one slow record among
// steady ones is noise, not a change.
constexpr std::size_t kMinLevel = 2;

// The split of x[lo, hi) (at least kMinLevel values each side) where the
// energy distance between the two sides, weighted by m n / (m + n), is
// largest (E-divisive with exponent 1). Each move of the split point updates
// the three sums of distances in O(n).
std::size_t best_split(const std::vector<double>& x, std::size_t lo, std::size_t hi) {
  auto distance = [&](std::size_t i, std::size_t j) { return std::fabs(x[i] - x[j]); };
  double within_left = 0, within_right = 0, between = 0;
  for (std::size_t i = lo + 1; i < hi; ++i)
    for (std::size_t j = i + 1; j < hi; ++j) within_right += distance(i, j);
  for (std::size_t j = lo + 1; j < hi; ++j) between += distance(lo, j);
  std::size_t best = lo + kMinLevel;
  double best_energy = -std::numeric_limits<double>::infinity();
  for (std::size_t split = lo + 1; split < hi; ++split) {
    const double m = double(split - lo), n = double(hi - split);
    const double left_pairs = m * (m - 1) / 2, right_pairs = n * (n - 1) / 2;
    const double energy = m * n / (m + n) *
                          (2 * between / (m * n) - (left_pairs > 0 ? within_left / left_pairs : 0) -
                           (right_pairs > 0 ? within_right / right_pairs : 0));
    if (split - lo >= kMinLevel && hi - split >= kMinLevel && energy > best_energy) best_energy = energy, best = split;
    if (split + 1 == hi) break;
    // x[split] moves from the right side to the left.
    for (std::size_t i = lo; i < split; ++i) within_left += distance(i, split), between -= distance(i, split);
    for (std::size_t j = split + 1; j < hi; ++j) within_right -= distance(split, j), between += distance(split, j);
  }
  return best;
}

// Every split E-divisive would make, down to levels of kMinLevel values,
// tested by nothing yet.
void candidate_splits(const std::vector<double>& logs, std::size_t lo, std::size_t hi,
                      std::vector<std::size_t>& splits) {
  if (hi - lo < 2 * kMinLevel) return;
  const std::size_t split = best_split(logs, lo, hi);
  splits.push_back(split);
  candidate_splits(logs, lo, split, splits);
  candidate_splits(logs, split, hi, splits);
}

// What must match for two records of an implementation to be compared.
bool comparable(const BaselineRecord& a, const BaselineRecord& b) {
  return a.workload_identity == b.workload_identity && a.preset == b.preset && a.axes == b.axes &&
         a.precision == b.precision;
}

HistoryPoint point_of(const BaselineRecord& record) {
  HistoryPoint point;
  point.record = record;
  return point;
}

}  // namespace

ChangePointPolicy change_point_policy(const GatePolicy& gate) {
  ChangePointPolicy policy;
  policy.min_relative_change = gate.latency_tolerance;
  return policy;
}

double student_t_two_sided_p(double t, double degrees) {
  if (!std::isfinite(t)) return 0;
  return incomplete_beta(degrees / 2, 0.5, degrees / (degrees + t * t));
}

std::vector<ChangePoint> find_change_points(const std::vector<double>& values, const ChangePointPolicy& policy) {
  std::vector<double> logs;
  for (double value : values) logs.push_back(std::log(value));
  std::vector<std::size_t> splits;
  candidate_splits(logs, 0, logs.size(), splits);
  std::sort(splits.begin(), splits.end());
  // Each candidate is tested between its neighbours; the weakest that fails
  // (the largest p-value) goes, merging the two levels around it, and the
  // rest are tested again, until every one left passes. Testing against the
  // neighbours rather than the whole series finds a step that a later step
  // back would hide.
  while (true) {
    std::vector<ChangePoint> tested;
    std::optional<std::size_t> weakest;
    for (std::size_t i = 0; i < splits.size(); ++i) {
      const std::size_t lo = i == 0 ? 0 : splits[i - 1], hi = i + 1 == splits.size() ? logs.size() : splits[i + 1];
      const double ratio = std::exp(mean_of(logs, splits[i], hi) - mean_of(logs, lo, splits[i]));
      const double p = split_p_value(logs, lo, splits[i], hi);
      tested.push_back({splits[i], ratio, p});
      const bool fails = p > policy.max_p_value || std::fabs(ratio - 1) < policy.min_relative_change;
      if (fails && (!weakest || p > tested[*weakest].p_value)) weakest = i;
    }
    if (!weakest) return tested;
    splits.erase(splits.begin() + static_cast<std::ptrdiff_t>(*weakest));
  }
}

std::vector<ImplementationHistory> published_history(const BaselineFile& file, const ChangePointPolicy& policy) {
  std::vector<ImplementationHistory> histories;
  for (const BaselineRecord& current : file.records) {
    ImplementationHistory history;
    history.implementation = current.implementation;
    history.trust = current.trust;
    // The records this one replaced, in the order they were published.
    for (const HistoryEntry& entry : file.history)
      if (entry.previous && entry.previous->implementation == current.implementation &&
          entry.previous->trust == current.trust)
        history.points.push_back(point_of(*entry.previous));
    history.points.push_back(point_of(current));

    const bool all_have_median = std::all_of(history.points.begin(), history.points.end(), [](const HistoryPoint& p) {
      return p.record.latency.median_ms > 0;
    });
    history.statistic = all_have_median ? "median_ms" : "mean_ms";
    for (HistoryPoint& point : history.points)
      point.value_ms = all_have_median ? point.record.latency.median_ms : point.record.latency.mean_ms;

    // Change points within each run of comparable records.
    std::size_t begin = 0;
    for (std::size_t end = 1; end <= history.points.size(); ++end) {
      if (end < history.points.size() && comparable(history.points[end - 1].record, history.points[end].record))
        continue;
      if (end < history.points.size()) history.points[end].comparison_restarts = true;
      std::vector<double> values;
      for (std::size_t i = begin; i < end; ++i) values.push_back(std::max(history.points[i].value_ms, 1e-12));
      for (const ChangePoint& change : find_change_points(values, policy)) {
        ChangePoint at = change;
        at.index += begin;
        history.points[at.index].change = at;
      }
      if (end == history.points.size()) {
        history.drift = history.points.back().value_ms / std::max(history.points[begin].value_ms, 1e-12);
        history.drift_points = end - begin;
      }
      begin = end;
    }
    histories.push_back(std::move(history));
  }
  return histories;
}

}  // namespace kg
