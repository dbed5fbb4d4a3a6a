// Reading baseline files: the shipped ones, the fixtures, and broken ones
// whose errors must name the file and the JSON path.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "fixtures.hpp"
#include "kernelgate/baseline.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/suite.hpp"

namespace kg {
namespace {

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
  auto message = error_of(test::fixture_dir() / "baselines" / "corrupt.json");
  EXPECT_NE(message.find("corrupt.json: not valid JSON"), std::string::npos) << message;
}

TEST(Baseline, BadFieldErrorNamesTheJsonPath) {
  auto message = error_of(test::fixture_dir() / "baselines" / "bad_latency.json");
  EXPECT_NE(message.find("bad_latency.json: /records/2/latency/mean_ms: expected a number"), std::string::npos)
      << message;
}

TEST(Baseline, MissingFileIsNoBaseline) {
  EXPECT_FALSE(load_baseline_if_present(test::fixture_dir() / "baselines" / "absent.json").has_value());
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

  for (const Suite& suite : load_suites(default_suites_dir())) {
    const auto folder = root / suite.id;
    if (suite.origin.value("benchmark", "") != "KernelBench" || !std::filesystem::exists(folder)) continue;
    EXPECT_TRUE(with_reported_eager.count(suite.id)) << suite.id << ": no reported torch_eager record in " << folder;
  }
}

}  // namespace
}  // namespace kg
