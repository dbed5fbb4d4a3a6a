// The result records survive the trip through JSON (child to parent, and
// into the reports), including NaN values and every outcome name.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/json_reader.hpp"
#include "kernelgate/detail/result.hpp"
#include "support/error_of.hpp"

namespace kg {
namespace {

using ::testing::HasSubstr;

// The names are a published format: every outcome, in declaration order,
// has the name docs/report.schema.json lists for it, and reads back as itself.
TEST(ResultJson, OutcomeNamesAreTheSchemasAndRoundTrip) {
  const auto schema = read_json_file(std::filesystem::path(KERNELGATE_SOURCE_ROOT) / "docs/report.schema.json");
  const auto& names = schema.at("definitions").at("outcome").at("enum");
  ASSERT_EQ(names.size(), std::size_t(Outcome::skipped) + 1);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const Outcome outcome = static_cast<Outcome>(i);
    EXPECT_EQ(to_string(outcome), names[i].get<std::string>());
    EXPECT_EQ(outcome_from_string(names[i].get<std::string>()), outcome);
  }
  EXPECT_THROW(outcome_from_string("fine"), Error);
  EXPECT_TRUE(is_failure(Outcome::stale));
  EXPECT_TRUE(is_failure(Outcome::timed_out));
  EXPECT_FALSE(is_failure(Outcome::new_record));
  EXPECT_FALSE(is_failure(Outcome::not_supported));
}

TEST(ResultJson, RunResultRoundTrips) {
  RunResult run;
  run.workload = "l1_071_conv_transposed_2d";
  run.identity = "abc";
  run.preset = "ci";
  run.axes = {{"batch_size", 2}, {"height_in", 19}};
  run.device = "cpu";
  run.hardware = "cpu";
  run.environment = {{"cpu", "test"}};
  run.seed = 7;
  run.started_at = "2026-01-01T00:00:00Z";
  CandidateResult candidate;
  candidate.id = "direct_fp32";
  candidate.precision = "fp32";
  candidate.outcome = Outcome::incorrect;
  candidate.message = "wrong";
  candidate.checks.push_back({.name = "contract", .outcome = Outcome::contract_violation,
                              .message = "m", .rule = "guard_bands"});
  ErrorStats error;
  error.checked = 10;
  error.first_mismatch_got = std::numeric_limits<double>::quiet_NaN();
  error.first_mismatch_want = 1.5;
  error.non_finite = true;
  candidate.error = error;
  LatencyStats latency;
  latency.protocol = "adaptive";
  latency.n = 3;
  latency.mean_ms = 1.25;
  latency.samples_ms = {1.0, 1.5, 1.25};
  latency.sm_clock_mhz = {1980, 1755, 1980};
  latency.throttled_samples = 2;
  latency.rounds = 2;
  latency.busy_after_ms = 0.004;
  latency.clock_event_reasons = {"applications_clocks_setting", "sw_power_cap"};
  latency.hold_expired_samples = 1;
  candidate.latency = latency;
  candidate.bitwise_deterministic = false;
  candidate.thread_orders = {"forward", "reverse"};
  run.candidates.push_back(candidate);

  const nlohmann::ordered_json json = run;
  EXPECT_EQ(json["candidates"][0]["outcome"], "incorrect");
  // Measured on a GPU only: a latency without it does not write it.
  run.candidates[0].latency->busy_after_ms = 0;
  EXPECT_FALSE(nlohmann::ordered_json(run)["candidates"][0]["latency"].contains("busy_after_ms"));
  run.candidates[0].latency->busy_after_ms = 0.004;
  // Nor a GPU that said nothing of its clock, nor one whose holds all held.
  LatencyStats quiet = latency;
  quiet.clock_event_reasons.clear();
  quiet.hold_expired_samples = 0;
  const nlohmann::ordered_json quiet_json = quiet;
  EXPECT_FALSE(quiet_json.contains("clock_event_reasons"));
  EXPECT_FALSE(quiet_json.contains("hold_expired_samples"));
  EXPECT_EQ(json["candidates"][0]["error"]["first_mismatch_got"], "NaN");
  const RunResult back = nlohmann::ordered_json::parse(json.dump()).get<RunResult>();
  EXPECT_EQ(back.workload, run.workload);
  EXPECT_EQ(back.axes, run.axes);
  EXPECT_EQ(back.seed, 7u);
  EXPECT_EQ(back.environment["cpu"], "test");
  ASSERT_EQ(back.candidates.size(), 1u);
  const CandidateResult& c = back.candidates[0];
  EXPECT_EQ(c.outcome, Outcome::incorrect);
  ASSERT_EQ(c.checks.size(), 1u);
  EXPECT_EQ(c.checks[0].rule, "guard_bands");
  ASSERT_TRUE(c.error.has_value());
  EXPECT_TRUE(std::isnan(c.error->first_mismatch_got));
  EXPECT_EQ(c.error->first_mismatch_want, 1.5);
  EXPECT_TRUE(c.error->non_finite);
  ASSERT_TRUE(c.latency.has_value());
  EXPECT_EQ(c.latency->mean_ms, 1.25);
  EXPECT_EQ(c.latency->samples_ms, latency.samples_ms);
  EXPECT_EQ(c.latency->sm_clock_mhz, latency.sm_clock_mhz);
  EXPECT_EQ(c.latency->throttled_samples, 2);
  EXPECT_EQ(c.latency->rounds, 2);
  EXPECT_EQ(c.latency->busy_after_ms, 0.004);
  EXPECT_EQ(c.latency->clock_event_reasons, latency.clock_event_reasons);
  EXPECT_EQ(c.latency->hold_expired_samples, 1);
  ASSERT_TRUE(c.bitwise_deterministic.has_value());
  EXPECT_FALSE(*c.bitwise_deterministic);
  EXPECT_EQ(c.thread_orders, candidate.thread_orders);
}

// Results are read strictly: a value of the wrong type or a key no record
// has is an error naming its path, not a default or a silent drop.
TEST(ResultJson, ResultsAreReadStrictlyNamingThePath) {
  const auto error_of = [](const char* text) {
    return test::error_of([&] { read_run_result(JsonReader(nlohmann::ordered_json::parse(text), "results.json")); });
  };
  EXPECT_EQ(error_of(R"({"workload": "w", "candidates": [{"id": "a", "outcome": "passed"}]})"), "");
  EXPECT_EQ(error_of(R"({"workload": "w", "seed": "7"})"), "results.json: $.seed: expected an integer >= 0, got string \"7\"");
  EXPECT_EQ(error_of(R"({"workload": "w", "candidates": [{"id": "a", "outcome": "fine"}]})"),
            "results.json: $.candidates[0].outcome: unknown outcome 'fine' (known: passed, new, incorrect, "
            "contract_violation, crashed, timed_out, regressed, inconclusive, unreliable, stale, not_supported, "
            "skipped)");
  EXPECT_EQ(error_of(R"({"workload": "w", "candidates": [{"id": "a", "outcome": "passed",
                                                         "latency": {"mean_ms": "fast"}}]})"),
            "results.json: $.candidates[0].latency.mean_ms: expected a number (or \"NaN\", \"Infinity\", "
            "\"-Infinity\"), got string \"fast\"");
  EXPECT_THAT(error_of(R"({"workload": "w", "candidates": [{"id": "a", "outcome": "passed", "verdict": "ok"}]})"),
              HasSubstr("results.json: $.candidates[0].verdict: unknown key"));
  EXPECT_EQ(error_of(R"({"candidates": []})"), "results.json: $.workload: missing required field");
}

}  // namespace
}  // namespace kg
