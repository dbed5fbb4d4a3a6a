// Change points in the published history (history.hpp): the t-test's
// p-values against tabulated ones, a step found where it is and nowhere
// else, and a series published record by record through merge_records, the
// code `kernelgate publish` runs.
#include <gtest/gtest.h>

#include <cmath>

#include "kernelgate/detail/baseline.hpp"
#include "kernelgate/detail/publish.hpp"
#include "kernelgate/detail/history.hpp"
#include "html_parts.hpp"

namespace kg {
namespace {

// Values around `level`, each off by a fixed pattern of under +-1%.
std::vector<double> level(double value, int count, int phase = 0) {
  static const double wobble[] = {0.004, -0.007, 0.009, -0.002, 0.006, -0.009, 0.001, -0.005};
  std::vector<double> values;
  for (int i = 0; i < count; ++i) values.push_back(value * (1 + wobble[(i + phase) % 8]));
  return values;
}

std::vector<double> join(std::vector<double> a, const std::vector<double>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(StudentT, TwoSidedPValuesMatchTheTables) {
  // Critical values of Student's t: t(0.975, 10) = 2.228139, t(0.995, 1) = 63.65674,
  // t(0.995, 4) = 4.604095; a million degrees is the normal's 1.959964.
  EXPECT_NEAR(student_t_two_sided_p(2.228139, 10), 0.05, 1e-6);
  EXPECT_NEAR(student_t_two_sided_p(63.65674, 1), 0.01, 1e-6);
  EXPECT_NEAR(student_t_two_sided_p(4.604095, 4), 0.01, 1e-6);
  EXPECT_NEAR(student_t_two_sided_p(1.959964, 1e6), 0.05, 1e-5);
  EXPECT_DOUBLE_EQ(student_t_two_sided_p(0, 3), 1);
  EXPECT_DOUBLE_EQ(student_t_two_sided_p(INFINITY, 3), 0);
}

TEST(ChangePoints, AStepIsFoundWhereItIs) {
  const auto series = join(level(1.0, 6), level(1.2, 5, 3));
  const auto changes = find_change_points(series, {});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].index, 6u);
  EXPECT_NEAR(changes[0].ratio, 1.2, 0.01);
  EXPECT_LT(changes[0].p_value, 1e-6);
}

TEST(ChangePoints, AStepDownAndBackUpAreTwo) {
  const auto series = join(join(level(2.0, 5), level(1.5, 5, 2)), level(2.0, 5, 5));
  const auto changes = find_change_points(series, {});
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].index, 5u);
  EXPECT_LT(changes[0].ratio, 1);
  EXPECT_EQ(changes[1].index, 10u);
  EXPECT_GT(changes[1].ratio, 1);
}

TEST(ChangePoints, NoiseAStepUnderTheMinimumAndOneOutlierAreNone) {
  EXPECT_TRUE(find_change_points(level(1.0, 12), {}).empty());
  // 3% is confidently there, but under the 5% minimum change.
  EXPECT_TRUE(find_change_points(join(level(1.0, 6), level(1.03, 6, 4)), {}).empty());
  ChangePointPolicy smaller;
  smaller.min_relative_change = 0.02;
  EXPECT_EQ(find_change_points(join(level(1.0, 6), level(1.03, 6, 4)), smaller).size(), 1u);
  // One slow record among steady ones is no new level.
  auto outlier = level(1.0, 11);
  outlier[5] = 1.6;
  EXPECT_TRUE(find_change_points(outlier, {}).empty());
}

TEST(ChangePoints, ANewLevelNeedsTwoRecords) {
  EXPECT_TRUE(find_change_points({}, {}).empty());
  EXPECT_TRUE(find_change_points({1.0}, {}).empty());
  EXPECT_TRUE(find_change_points({1.0, 2.0}, {}).empty());
  // The latest record alone is slower: the gate's business, not yet a level.
  EXPECT_TRUE(find_change_points({1.0, 1.0, 1.0, 2.0}, {}).empty());
  // Two exact values at each level: the step is certain.
  const auto changes = find_change_points({1.0, 1.0, 2.0, 2.0}, {});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].index, 2u);
  EXPECT_EQ(changes[0].p_value, 0);
}

BaselineRecord measured(double median_ms, int day, const std::string& identity = "identity-a") {
  BaselineRecord record;
  record.implementation = "fused_tf32";
  record.precision = "tf32";
  record.trust = Trust::measured;
  record.latency.protocol = "adaptive";
  record.latency.clock = "cuda_event";
  record.latency.n = 50;
  record.latency.mean_ms = median_ms * 1.01;
  record.latency.median_ms = median_ms;
  record.latency.min_ms = median_ms * 0.98;
  record.latency.max_ms = median_ms * 1.1;
  record.latency.std_ms = median_ms * 0.01;
  record.observed = "2026-02-" + std::string(day < 10 ? "0" : "") + std::to_string(day) + "T12:00:00Z";
  record.workload_identity = identity;
  record.preset = "default";
  record.axes = {{"batch", 16}};
  record.git_revision = "rev" + std::to_string(day);
  return record;
}

// A baseline file that `values` were published into one at a time, a day apart.
BaselineFile published(const std::vector<double>& values, int restart_at = -1) {
  BaselineFile file;
  file.workload = "w";
  file.hardware = "h100-sxm";
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::vector<std::string> diff, refused;
    const int day = static_cast<int>(i) + 1;
    const bool restarted = restart_at >= 0 && static_cast<int>(i) >= restart_at;
    merge_records(file, {measured(values[i], day, restarted ? "identity-b" : "identity-a")},
                  {"report " + std::to_string(i), "tester", "2026-03-01T00:00:00Z", false}, diff, refused);
    EXPECT_TRUE(refused.empty());
  }
  return file;
}

TEST(PublishedHistory, EveryPublishedRecordInOrderWithItsChangePoint) {
  const auto values = join(level(1.0, 5), level(1.25, 4, 1));
  const BaselineFile file = published(values);
  ASSERT_EQ(file.history.size(), values.size());
  const auto histories = published_history(file, {});
  ASSERT_EQ(histories.size(), 1u);
  const ImplementationHistory& history = histories[0];
  EXPECT_EQ(history.statistic, "median_ms");
  ASSERT_EQ(history.points.size(), values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_DOUBLE_EQ(history.points[i].value_ms, values[i]) << i;
    EXPECT_EQ(history.points[i].change.has_value(), i == 5) << i;
    EXPECT_FALSE(history.points[i].comparison_restarts);
  }
  EXPECT_NEAR(history.drift, values.back() / values.front(), 1e-12);
  EXPECT_EQ(history.drift_points, values.size());
}

TEST(PublishedHistory, NoChangePointAcrossAnotherWorkloadIdentity) {
  // The suite changed at the sixth record: the slower figures measure
  // another workload, so the series restarts there instead of stepping.
  const BaselineFile file = published(join(level(1.0, 5), level(1.25, 4, 1)), 5);
  const ImplementationHistory history = published_history(file, {}).at(0);
  for (std::size_t i = 0; i < history.points.size(); ++i) {
    EXPECT_FALSE(history.points[i].change.has_value()) << i;
    EXPECT_EQ(history.points[i].comparison_restarts, i == 5) << i;
  }
  EXPECT_EQ(history.drift_points, 4u);
  EXPECT_NEAR(history.drift, (1 + 0.006) / (1 - 0.007), 1e-12);
}

TEST(PublishedHistory, RecordsWithoutAMedianAreJudgedByTheirMean) {
  BaselineFile file = published({1.0, 1.0});
  BaselineRecord reported = measured(0, 1);
  reported.implementation = "torch_eager";
  reported.trust = Trust::reported;
  reported.latency.median_ms = 0;
  reported.latency.mean_ms = 3.9;
  file.records.push_back(reported);
  const auto histories = published_history(file, {});
  ASSERT_EQ(histories.size(), 2u);
  EXPECT_EQ(histories[1].implementation, "torch_eager");
  EXPECT_EQ(histories[1].statistic, "mean_ms");
  ASSERT_EQ(histories[1].points.size(), 1u);
  EXPECT_DOUBLE_EQ(histories[1].points[0].value_ms, 3.9);
  EXPECT_EQ(histories[0].points.size(), 2u);
}

// Records of one day are drawn apart, by their time, not as one vertical
// line over one date.
TEST(HistoryChart, RecordsOfOneDayAreSeparatePoints) {
  ImplementationHistory history;
  history.implementation = "fused_tf32";
  for (const auto& [observed, ms] : {std::pair{"2026-03-01T09:00:00Z", 1.0}, std::pair{"2026-03-01T18:00:00Z", 1.2},
                                     std::pair{"2026-03-02T09:00:00Z", 1.1}}) {
    HistoryPoint point;
    point.record.observed = observed;
    point.value_ms = ms;
    history.points.push_back(point);
  }
  const std::string svg = html::history_chart_svg({history});
  std::vector<std::string> xs;
  for (std::size_t at = svg.find(" cx=\""); at != std::string::npos; at = svg.find(" cx=\"", at + 1))
    xs.push_back(svg.substr(at + 5, svg.find('"', at + 5) - at - 5));
  ASSERT_EQ(xs.size(), 3u) << svg;
  EXPECT_NE(xs[0], xs[1]);
  EXPECT_NE(xs[1], xs[2]);
  EXPECT_LT(std::stod(xs[0]), std::stod(xs[1]));
  EXPECT_LT(std::stod(xs[1]), std::stod(xs[2]));
}

}  // namespace
}  // namespace kg
