// Reading baseline files: the shipped ones, the fixtures, and broken ones
// whose errors must name the file and the JSON path.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "fixtures.hpp"
#include "kernelgate/detail/baseline.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/report.hpp"
#include "kernelgate/detail/suite.hpp"
#include "support/error_of.hpp"

namespace kg {
namespace {

using ::testing::HasSubstr;

std::string error_of(const std::filesystem::path& file) {
  try {
    load_baseline_file(file);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Baseline, FixtureRoundTripsThroughJson) {
  BaselineFile file = test::fixture_baseline("matching.json");
  EXPECT_EQ(file.records.size(), 6u);
  ASSERT_NE(file.find("torch_eager", Trust::reported), nullptr);
  EXPECT_EQ(file.find("torch_eager", Trust::measured), nullptr);
  EXPECT_TRUE(std::isnan(file.find("torch_eager", Trust::reported)->latency.median_ms));
  nlohmann::ordered_json written = file;
  BaselineFile again = parse_baseline_file(written, "round trip");
  nlohmann::ordered_json rewritten = again;
  EXPECT_EQ(written.dump(), rewritten.dump());
}

TEST(Baseline, RankingIsByMeanLatency) {
  BaselineFile file = test::fixture_baseline("matching.json");
  auto ranking = rank_records(file.records);
  ASSERT_EQ(ranking.size(), 6u);
  EXPECT_EQ(ranking.front().implementation, "fused_tf32");
  EXPECT_EQ(ranking.front().rank, 1);
  EXPECT_EQ(ranking.back().implementation, "torch_compile_inductor");
  for (std::size_t i = 1; i < ranking.size(); ++i) EXPECT_LE(ranking[i - 1].mean_ms, ranking[i].mean_ms);
  EXPECT_EQ(file.stored_rank("implicit_gemm_tf32", Trust::measured), 2);
}

TEST(Baseline, CorruptFileErrorNamesTheFile) {
  auto message = error_of(test::baseline_fixture_dir() / "corrupt.json");
  EXPECT_THAT(message, HasSubstr("corrupt.json: not valid JSON"));
}

TEST(Baseline, BadFieldErrorNamesTheJsonPath) {
  auto message = error_of(test::baseline_fixture_dir() / "bad_latency.json");
  EXPECT_THAT(message, HasSubstr("bad_latency.json: $.records[2].latency.mean_ms: expected a number"));
}

// No baseline file holds a figure of the simulated GPU: a record, a ranking
// entry or a replaced record saying simulated is an error at its path, and
// so is a file kept under the simulated GPU's key.
TEST(Baseline, ASimulatedRecordIsAnErrorNamingTheFileAndPath) {
  EXPECT_THAT(error_of(test::baseline_fixture_dir() / "simulated_record.json"),
              HasSubstr("simulated_record.json: $.records[2].trust: a simulated record is never stored: a run on "
                        "the simulated GPU is not a measurement"));
  auto edited_error = [](const nlohmann::ordered_json& json) {
    return test::error_of([&] { parse_baseline_file(json, "edited.json"); });
  };
  const auto matching = test::read_json(test::baseline_fixture_dir() / "matching.json");
  auto ranked = matching;
  ranked["ranking"][0]["trust"] = "simulated";
  EXPECT_THAT(edited_error(ranked), HasSubstr("edited.json: $.ranking[0].trust: a simulated record is never stored"));
  auto replaced = matching;
  auto previous = replaced["records"][2];
  previous["trust"] = "simulated";
  replaced["history"] = nlohmann::ordered_json::array();
  replaced["history"].push_back({{"at", "2026-03-01T00:00:00Z"}, {"action", "replaced"},
                                 {"implementation", previous["implementation"]}, {"previous", previous}});
  EXPECT_THAT(edited_error(replaced),
              HasSubstr("edited.json: $.history[0].previous.trust: a simulated record is never stored"));
  auto simulated_key = matching;
  simulated_key["hardware"] = "sim-h100-sxm";
  EXPECT_THAT(edited_error(simulated_key), HasSubstr("edited.json: $.hardware: 'sim-h100-sxm' is the simulated GPU's key"));
}

TEST(Baseline, MissingFileIsNoBaseline) {
  EXPECT_FALSE(load_baseline_if_present(test::baseline_fixture_dir() / "absent.json").has_value());
}

TEST(Baseline, IsoDates) {
  EXPECT_EQ(iso_date_days("1970-01-02"), 1);
  EXPECT_EQ(*iso_date_days("2026-03-15T10:00:00Z") - *iso_date_days("2026-03-05"), 10);
  EXPECT_FALSE(iso_date_days("2026-02-30").has_value());
  EXPECT_FALSE(iso_date_days("yesterday").has_value());
}

// Every baseline file in baselines/ loads, sits where its workload and
// hardware say, and keeps its ranking in step with its records. Files come
// and go (a publish adds h200.json, a new workload adds its folder), so the
// test counts nothing; the KernelBench figures must still ship as reported
// torch_eager records for every KernelBench workload that has baselines.
TEST(Baseline, ShippedFilesLoad) {
  const auto root = std::filesystem::path(KERNELGATE_SOURCE_ROOT) / "baselines";
  int files = 0;
  std::set<std::string> with_reported_eager;  // workloads
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    BaselineFile file = load_baseline_file(entry.path());
    EXPECT_EQ(file.workload, entry.path().parent_path().filename().string());
    EXPECT_EQ(file.hardware, entry.path().stem().string());
    EXPECT_EQ(file.ranking.size(), file.records.size()) << entry.path();
    if (file.find("torch_eager", Trust::reported) != nullptr) with_reported_eager.insert(file.workload);
    for (const BaselineRecord& record : file.records)
      if (record.trust == Trust::reported) {
        EXPECT_GT(record.latency.n, 0) << entry.path() << " " << record.implementation;
        EXPECT_FALSE(record.source.empty()) << entry.path() << " " << record.implementation;
      }
  }
  EXPECT_GT(files, 0);

  for (const Suite& suite : load_suites(std::filesystem::path(KERNELGATE_STOCK_SUITES_DIR))) {
    const auto folder = root / suite.id;
    if (suite.origin.value("benchmark", "") != "KernelBench" || !std::filesystem::exists(folder)) continue;
    EXPECT_TRUE(with_reported_eager.count(suite.id)) << suite.id << ": no reported torch_eager record in " << folder;
  }
}


// ---- what a hand edit can break: each is an error naming the file and path --

std::string parse_error_of(const nlohmann::ordered_json& json) {
  try {
    parse_baseline_file(json, "edited.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// The latency keys of a version 1 record, as the error lists them.
constexpr const char* kLatencyV1Keys = "clock, cv, max_ms, mean_ms, median_ms, min_ms, n, protocol, std_ms, warmups";

nlohmann::ordered_json matching_json() { return test::read_json(test::baseline_fixture_dir() / "matching.json"); }

TEST(Baseline, UnknownFieldsAreErrorsNamingTheirPath) {
  auto top = matching_json();
  top["colour"] = "blue";
  EXPECT_EQ(parse_error_of(top), "edited.json: $.colour: unknown key (allowed here: hardware, history, kind, ranking, records, "
            "schema_version, workload)");
  auto record = matching_json();
  record["records"][1]["latency"]["p99_ms"] = 1.0;
  EXPECT_EQ(parse_error_of(record), "edited.json: $.records[1].latency.p99_ms: unknown key (allowed here: " + std::string(kLatencyV1Keys) + ")");
  auto owner = matching_json();
  owner["records"][0]["owner"] = "team a";
  EXPECT_EQ(parse_error_of(owner), "edited.json: $.records[0].owner: unknown key (allowed here: axes, counters, environment, "
            "git_revision, implementation, kind, latency, notes, observed, precision, preset, ratio_to_eager, "
            "source, trust, workload_identity)");
  auto rank = matching_json();
  rank["ranking"][0]["note"] = "fastest";
  EXPECT_EQ(parse_error_of(rank), "edited.json: $.ranking[0].note: unknown key (allowed here: implementation, mean_ms, rank, trust)");
}

TEST(Baseline, TheRankingMustDescribeTheRecords) {
  auto ghost = matching_json();
  ghost["ranking"][0]["implementation"] = "ghost";
  EXPECT_THAT(parse_error_of(ghost),
              HasSubstr("edited.json: $.ranking[0]: ranks ghost (measured), which has no record"));
  auto twice = matching_json();
  twice["ranking"][1]["rank"] = 1;
  EXPECT_THAT(parse_error_of(twice), HasSubstr("$.ranking[1].rank: rank 1 is given twice"));
  auto missing = matching_json();
  missing["ranking"].erase(missing["ranking"].size() - 1);
  EXPECT_THAT(parse_error_of(missing), HasSubstr("$.ranking: does not rank"));
  auto mean = matching_json();
  mean["ranking"][0]["mean_ms"] = 0.5;
  EXPECT_THAT(parse_error_of(mean), HasSubstr("$.ranking[0].mean_ms: says 0.5"));
}

// Version 1 files (the fixtures, the shipped files) load as they are; the
// samples of version 2 are refused in them, and checked in version 2 files.
TEST(Baseline, Version2RecordsCarrySortedSamplesAndVersion1FilesStillLoad) {
  const auto v1 = matching_json();
  ASSERT_EQ(v1["schema_version"], 1);
  const BaselineFile old_file = parse_baseline_file(v1, "edited.json");
  EXPECT_EQ(old_file.schema_version, 1);
  EXPECT_TRUE(old_file.records[0].latency.samples_ms.empty());
  nlohmann::ordered_json rewritten = old_file;
  EXPECT_EQ(rewritten["schema_version"], kBaselineSchemaVersion);  // what is written is the current version
  EXPECT_EQ(rewritten["kind"], kBaselineKind);

  auto with_samples = v1;
  with_samples["records"][1]["latency"]["samples_ms"] = {0.59, 0.6, 0.61};
  EXPECT_EQ(parse_error_of(with_samples),
            "edited.json: $.records[1].latency.samples_ms: unknown key (allowed here: " + std::string(kLatencyV1Keys) + ")");

  auto v2 = with_samples;
  v2["schema_version"] = 2;
  const BaselineFile file = parse_baseline_file(v2, "edited.json");
  EXPECT_EQ(file.records[1].latency.samples_ms, (std::vector<double>{0.59, 0.6, 0.61}));
  nlohmann::ordered_json round_trip = file;
  EXPECT_EQ(round_trip["records"][1]["latency"]["samples_ms"], v2["records"][1]["latency"]["samples_ms"]);

  auto unsorted = v2;
  unsorted["records"][1]["latency"]["samples_ms"] = {0.6, 0.59};
  EXPECT_EQ(parse_error_of(unsorted),
            "edited.json: $.records[1].latency.samples_ms[1]: samples must be sorted, smallest first");
  auto zero = v2;
  zero["records"][1]["latency"]["samples_ms"] = {0.0, 0.59};
  EXPECT_EQ(parse_error_of(zero), "edited.json: $.records[1].latency.samples_ms[0]: expected a latency > 0");
  auto too_many = v2;
  too_many["records"][1]["latency"]["samples_ms"] = std::vector<double>(513, 0.6);
  too_many["records"][1]["latency"]["n"] = 1000;
  EXPECT_NE(parse_error_of(too_many).find("holds 513 samples; a stored record keeps at most 512"), std::string::npos)
      << parse_error_of(too_many);
  auto beyond_n = v2;
  beyond_n["records"][1]["latency"]["n"] = 2;
  EXPECT_THAT(parse_error_of(beyond_n), HasSubstr("holds 3 samples, more than n = 2"));
  auto future_version = v2;
  future_version["schema_version"] = 4;
  EXPECT_EQ(parse_error_of(future_version),
            "edited.json: $.schema_version: unsupported schema version 4 (this kernelgate reads 1 to 3)");
}

// The summary the page and the ranking show must be the samples' the gate
// judges: recomputed where all n are stored, bounded where they are thinned.
TEST(Baseline, ASummaryThatDisagreesWithItsSamplesIsRefused) {
  auto v2 = matching_json();
  v2["schema_version"] = 2;
  auto& latency = v2["records"][1]["latency"];  // n 100, mean 0.6, min 0.58, median 0.6, max 0.63
  auto whole = v2;
  whole["records"][1]["latency"]["n"] = 3;
  whole["records"][1]["latency"]["samples_ms"] = {1.0, 1.0, 1.0};
  whole["records"][1]["latency"]["mean_ms"] = 0.001;  // a record far faster than its own samples
  EXPECT_EQ(parse_error_of(whole),
            "edited.json: $.records[1].latency.mean_ms: says 0.001000 ms, but its 3 stored samples give 1.000000 ms");
  whole["records"][1]["latency"]["mean_ms"] = 1.0;
  EXPECT_THAT(parse_error_of(whole), HasSubstr("$.records[1].latency.std_ms: says 0.010000 ms, but its 3 stored"));
  whole["records"][1]["latency"]["std_ms"] = 0.0;
  EXPECT_THAT(parse_error_of(whole), HasSubstr("$.records[1].latency.min_ms: says 0.580000 ms"));
  for (const char* key : {"min_ms", "median_ms", "max_ms"}) whole["records"][1]["latency"][key] = 1.0;
  for (auto& entry : whole["ranking"])  // the ranking states its records' means
    if (entry["implementation"] == whole["records"][1]["implementation"]) entry["mean_ms"] = 1.0;
  EXPECT_EQ(parse_error_of(whole), "");

  auto thinned = v2;  // 3 of the 100 samples kept
  thinned["records"][1]["latency"]["samples_ms"] = {0.59, 0.6, 0.61};
  EXPECT_EQ(parse_error_of(thinned), "");
  thinned["records"][1]["latency"]["min_ms"] = 0.595;
  EXPECT_EQ(parse_error_of(thinned), "edited.json: $.records[1].latency.min_ms: says 0.595000 ms, but its 3 stored "
                                     "samples give a smaller one, 0.590000 ms");
  thinned["records"][1]["latency"]["min_ms"] = 0.58;
  thinned["records"][1]["latency"]["mean_ms"] = 0.001;
  EXPECT_THAT(parse_error_of(thinned), HasSubstr("$.records[1].latency.mean_ms: says 0.001000 ms"));
  thinned["records"][1]["latency"]["mean_ms"] = latency["mean_ms"];
  thinned["records"][1]["latency"]["max_ms"] = 0.605;
  EXPECT_THAT(parse_error_of(thinned), HasSubstr("$.records[1].latency.max_ms: says 0.605000 ms"));
}

// Version 3 is version 2 with the "kind" every kernelgate file has: required
// from version 3 on, and checked where given.
TEST(Baseline, Version3FilesNameTheirKind) {
  auto v3 = matching_json();
  v3["schema_version"] = 3;
  EXPECT_EQ(parse_error_of(v3), "edited.json: $.kind: missing required field (expected \"kernelgate-baseline\")");
  v3["kind"] = "kernelgate-report";
  EXPECT_EQ(parse_error_of(v3), "edited.json: $.kind: a 'kernelgate-report' file, not a 'kernelgate-baseline' file");
  v3["kind"] = kBaselineKind;
  EXPECT_EQ(parse_baseline_file(v3, "edited.json").schema_version, 3);
  auto v2_with_kind = matching_json();
  v2_with_kind["schema_version"] = 2;
  v2_with_kind["kind"] = kBaselineKind;
  EXPECT_EQ(parse_baseline_file(v2_with_kind, "edited.json").schema_version, 2);
}

TEST(Baseline, AFutureObservationIsAnError) {
  auto future = matching_json();
  future["records"][2]["observed"] = "2999-01-01";
  EXPECT_EQ(parse_error_of(future), "edited.json: $.records[2].observed: the date 2999-01-01 is in the future");
}

TEST(Baseline, KeysThatCouldLeaveTheStoreAreErrors) {
  auto escape = matching_json();
  escape["hardware"] = "../../x";
  EXPECT_THAT(parse_error_of(escape), HasSubstr("edited.json: $.hardware: '../../x' has a character outside"));
  EXPECT_THROW(baseline_path("store", "l1_071_conv_transposed_2d", "../../x"), Error);
  EXPECT_THROW(baseline_path("store", "..", "h100-sxm"), Error);
  EXPECT_THROW(baseline_path("store", "l1_071_conv_transposed_2d", ".hidden"), Error);
  EXPECT_EQ(baseline_path("store", "l1_071_conv_transposed_2d", "h100-sxm"),
            std::filesystem::path("store/l1_071_conv_transposed_2d/h100-sxm.json"));
}

TEST(Baseline, NumbersOutOfRangeAreErrorsNamingTheFileAndPath) {
  const auto dir = test::fresh_dir("out_of_range");
  const auto file = dir / "h100-sxm.json";
  std::string text = matching_json().dump(2);
  const std::string mean = "\"mean_ms\": 0.6";
  ASSERT_NE(text.find(mean), std::string::npos);
  text.replace(text.find(mean), mean.size(), "\"mean_ms\": 1e999");
  std::ofstream(file) << text;
  const std::string error = error_of(file);
  EXPECT_THAT(error, HasSubstr(file.string() + ": $.ranking[0].mean_ms: "));  // the first 0.6 ms
  EXPECT_THAT(error, HasSubstr("number overflow"));
  // And in a report, read the same way.
  std::ofstream(dir / "report.json") << "{\"kind\": \"kernelgate-report\", \"candidates\": [{\"x\": -1e999}]}";
  EXPECT_THAT(test::error_of([&] { load_report(dir / "report.json"); }), HasSubstr("report.json: $.candidates[0].x: "));
}

TEST(Baseline, AFileWhoseKeysDisagreeWithItsPathIsNamed) {
  const auto dir = test::fresh_dir("disagree");
  std::filesystem::create_directories(dir / "l1_071_conv_transposed_2d");
  const auto file = dir / "l1_071_conv_transposed_2d" / "h100-sxm.json";
  std::filesystem::copy_file(test::baseline_fixture_dir() / "other_hardware.json", file);
  EXPECT_THAT(test::error_of([&] { load_stored_baseline(dir, "l1_071_conv_transposed_2d", "h100-sxm"); }),
              HasSubstr(file.string() + ": holds l1_071_conv_transposed_2d on h200"));
}

TEST(Baseline, AStoreThatCannotBeReadIsAnErrorNotEmpty) {
  const auto dir = test::fresh_dir("store_checks");
  EXPECT_THROW(check_baselines_dir(dir / "misspelt", false), Error);
  EXPECT_NO_THROW(check_baselines_dir(dir / "misspelt", true));  // a first run
  std::ofstream(dir / "a_file") << "x";
  EXPECT_THROW(check_baselines_dir(dir / "a_file", true), Error);
  EXPECT_NO_THROW(check_baselines_dir(dir, false));
  // A baseline that exists but cannot be read as a file is an error, not "absent".
  std::filesystem::create_directories(dir / "l1_071_conv_transposed_2d" / "cpu.json");
  EXPECT_THROW(load_stored_baseline(dir, "l1_071_conv_transposed_2d", "cpu"), Error);
  EXPECT_FALSE(load_stored_baseline(dir, "l1_071_conv_transposed_2d", "h200").has_value());
  if (::geteuid() != 0) {  // root reads any folder
    std::filesystem::create_directories(dir / "locked");
    std::filesystem::permissions(dir / "locked", std::filesystem::perms::none);
    EXPECT_THROW(check_baselines_dir(dir / "locked", true), Error);
    std::filesystem::permissions(dir / "locked", std::filesystem::perms::owner_all);
  }
}

}  // namespace
}  // namespace kg
