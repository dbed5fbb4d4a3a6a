// `kernelgate publish`: records from reports into baseline files, with history,
// dry run, corrupt files left alone, and concurrent publishes losing nothing.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "fixtures.hpp"
#include "kernelgate/baseline.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/report.hpp"

namespace kg {
namespace {

using test::candidate;
using test::fixture_baseline;
using test::fixture_dir;
using test::fixture_options;
using test::fixture_run;
using test::fresh_dir;
using test::reported;
using test::write_reports;

const std::string kWorkload = "l1_071_conv_transposed_2d";

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A report folder holding the report of `run` gated against `baseline`.
std::filesystem::path reports_of(const std::string& name, RunResult run, std::optional<BaselineFile> baseline) {
  const auto dir = fresh_dir(name + "_reports");
  write_reports(dir, *reported(std::move(run), std::move(baseline)));
  return dir;
}

// A baselines folder with the fixture `fixture` as the h100-sxm file of the workload.
std::filesystem::path baselines_with(const std::string& name, const std::string& fixture) {
  const auto dir = fresh_dir(name + "_baselines");
  std::filesystem::create_directories(dir / kWorkload);
  std::filesystem::copy_file(fixture_dir() / "baselines" / fixture, dir / kWorkload / "h100-sxm.json");
  return dir;
}

PublishOptions options_for(const std::filesystem::path& reports, const std::filesystem::path& baselines) {
  PublishOptions options;
  options.reports_dir = reports;
  options.baselines_dir = baselines;
  options.by = "tester";
  return options;
}

TEST(Publish, NewRecordsMakeAFileThatTheNextRunPasses) {
  const auto reports = reports_of("first", fixture_run("run_h100.json"), std::nullopt);
  const auto baselines = fresh_dir("first_baselines");
  auto published = publish_reports(options_for(reports, baselines));
  ASSERT_EQ(published.size(), 1u);
  EXPECT_TRUE(published[0].created);
  const BaselineFile file = load_baseline_file(baseline_path(baselines, kWorkload, "h100-sxm"));
  EXPECT_EQ(file.records.size(), 4u);
  EXPECT_EQ(file.history.size(), 4u);
  EXPECT_EQ(file.history[0].action, "added");
  EXPECT_EQ(file.history[0].by, "tester");
  ASSERT_EQ(file.ranking.size(), 4u);
  EXPECT_EQ(file.ranking[0].implementation, "fused_tf32");
  EXPECT_NEAR(*file.find("fused_tf32", Trust::measured)->ratio_to_eager, 0.4, 1e-12);

  // The second run against the published file passes: nothing new, nothing stale.
  RunResult again = fixture_run("run_h100.json");
  apply_gate(again, evaluate_gate(again, &file, fixture_options()));
  for (const auto& c : again.candidates) EXPECT_EQ(c.outcome, Outcome::passed) << c.id << ": " << c.message;

  // Publishing the same report again changes nothing.
  auto twice = publish_reports(options_for(reports, baselines));
  EXPECT_FALSE(twice[0].changed);
  EXPECT_EQ(load_baseline_file(baseline_path(baselines, kWorkload, "h100-sxm")).history.size(), 4u);
}

TEST(Publish, ReplacedRecordIsKeptInHistory) {
  RunResult run = fixture_run("run_h100.json");
  candidate(run, "fused_tf32").latency->mean_ms = 0.70;
  const auto reports = reports_of("replace", run, fixture_baseline("matching.json"));
  const auto baselines = baselines_with("replace", "matching.json");
  auto published = publish_reports(options_for(reports, baselines));
  ASSERT_EQ(published.size(), 1u);
  EXPECT_TRUE(published[0].changed);
  const BaselineFile file = load_baseline_file(baseline_path(baselines, kWorkload, "h100-sxm"));
  EXPECT_EQ(file.records.size(), 6u);  // reported records stay
  EXPECT_NE(file.find("torch_eager", Trust::reported), nullptr);
  EXPECT_DOUBLE_EQ(file.find("fused_tf32", Trust::measured)->latency.mean_ms, 0.70);
  bool found = false;
  for (const auto& entry : file.history)
    if (entry.implementation == "fused_tf32") {
      found = true;
      EXPECT_EQ(entry.action, "replaced");
      ASSERT_TRUE(entry.previous.has_value());
      EXPECT_DOUBLE_EQ(entry.previous->latency.mean_ms, 0.60);
      EXPECT_NE(entry.origin.find("l1_071_conv_transposed_2d.h100-sxm.json"), std::string::npos);
    }
  EXPECT_TRUE(found);
  // The ranking was recomputed from the new figures.
  EXPECT_EQ(file.ranking[0].implementation, "fused_tf32");
  EXPECT_EQ(file.stored_rank("torch_eager", Trust::reported), 5);
}

TEST(Publish, DryRunPrintsTheDiffAndWritesNothing) {
  RunResult run = fixture_run("run_h100.json");
  candidate(run, "implicit_gemm_tf32").latency->mean_ms = 0.55;  // now ahead of fused_tf32
  const auto reports = reports_of("dry", run, fixture_baseline("matching.json"));
  const auto baselines = baselines_with("dry", "matching.json");
  const auto file = baseline_path(baselines, kWorkload, "h100-sxm");
  const std::string before = read_text(file);
  auto options = options_for(reports, baselines);
  options.dry_run = true;
  auto published = publish_reports(options);
  EXPECT_EQ(read_text(file), before);
  ASSERT_EQ(published.size(), 1u);
  EXPECT_TRUE(published[0].changed);
  std::string diff;
  for (const auto& line : published[0].diff) diff += line + "\n";
  EXPECT_NE(diff.find("~ implicit_gemm_tf32: implicit_gemm_tf32 (tf32) 0.8 ms"), std::string::npos) << diff;
  EXPECT_NE(diff.find("-> 0.55 ms (-31.2%)"), std::string::npos) << diff;
  EXPECT_NE(diff.find("ranking: 1. fused_tf32, 2. implicit_gemm_tf32"), std::string::npos) << diff;
  EXPECT_NE(diff.find("->  1. implicit_gemm_tf32, 2. fused_tf32"), std::string::npos) << diff;
}

TEST(Publish, CorruptBaselineIsAnErrorNamingItAndIsNotOverwritten) {
  const auto reports = reports_of("corrupt", fixture_run("run_h100.json"), std::nullopt);
  const auto baselines = baselines_with("corrupt", "corrupt.json");
  const auto file = baseline_path(baselines, kWorkload, "h100-sxm");
  const std::string before = read_text(file);
  try {
    publish_reports(options_for(reports, baselines));
    FAIL() << "publish accepted a corrupt baseline file";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(file.string() + ": not valid JSON"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_text(file), before);
  // No temporary file was left beside it either.
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(file.parent_path())) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(Publish, ConcurrentPublishesLoseNothing) {
  // Eight processes at once, each publishing a report with its own candidate,
  // into the same baseline file: every record and history entry must survive.
  constexpr int kPublishers = 8;
  const auto baselines = baselines_with("concurrent", "matching.json");
  std::vector<std::filesystem::path> report_dirs;
  for (int i = 0; i < kPublishers; ++i) {
    RunResult run = fixture_run("run_h100_no_eager.json");
    run.candidates.resize(1);
    run.candidates[0].id = "variant_" + std::to_string(i);
    run.candidates[0].latency->mean_ms = 0.5 + 0.01 * i;
    report_dirs.push_back(reports_of("concurrent_" + std::to_string(i), run, std::nullopt));
  }
  std::vector<pid_t> children;
  for (int i = 0; i < kPublishers; ++i) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int code = 0;
      try {
        publish_reports(options_for(report_dirs[i], baselines));
      } catch (...) {
        code = 1;
      }
      ::_exit(code);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const BaselineFile file = load_baseline_file(baseline_path(baselines, kWorkload, "h100-sxm"));
  EXPECT_EQ(file.records.size(), 6u + kPublishers);
  EXPECT_EQ(file.history.size(), std::size_t(kPublishers));
  for (int i = 0; i < kPublishers; ++i)
    EXPECT_NE(file.find("variant_" + std::to_string(i), Trust::measured), nullptr) << i;
  EXPECT_EQ(file.ranking.size(), file.records.size());
}

TEST(Publish, EmptyReportFolderIsAnError) {
  const auto reports = fresh_dir("empty_reports");
  EXPECT_THROW(publish_reports(options_for(reports, fresh_dir("empty_baselines"))), Error);
}

}  // namespace
}  // namespace kg
