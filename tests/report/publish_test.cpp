// `kernelgate publish`: records from reports into baseline files, with history,
// dry run, corrupt files left alone, and concurrent publishes losing nothing.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "fixtures.hpp"
#include "kernelgate/detail/baseline.hpp"
#include "kernelgate/detail/publish.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/hardware.hpp"
#include "kernelgate/detail/report.hpp"
#include "kernelgate/detail/runner.hpp"
#include "support/error_of.hpp"
#include "support/stock_suite.hpp"

namespace kg {
namespace {

using namespace test;  // the fixtures and matchers (fixtures.hpp)
using test_support::stock_suite;

const std::string kWorkload = "l1_071_conv_transposed_2d";
const std::string kOtherWorkload = "l2_078_conv_transpose3d_max_max_sum";

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
  std::filesystem::copy_file(test::baseline_fixture_dir() / fixture, dir / kWorkload / "h100-sxm.json");
  return dir;
}

PublishOptions options_for(const std::filesystem::path& reports, const std::filesystem::path& baselines) {
  PublishOptions options;
  options.reports_dir = reports;
  options.baselines_dir = baselines;
  options.suites = {stock_suite(kWorkload), stock_suite(kOtherWorkload)};
  options.by = "tester";
  return options;
}

// A publish that must succeed: its files, after a check that it had no error.
std::vector<PublishedFile> publish_ok(const PublishOptions& options) {
  PublishResult result = publish_reports(options);
  std::string errors;
  for (const auto& error : result.errors) errors += error + "\n";
  EXPECT_TRUE(result.errors.empty()) << errors;
  return result.files;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

TEST(Publish, NewRecordsMakeAFileThatTheNextRunPasses) {
  const auto reports = reports_of("first", fixture_run("run_h100.json"), std::nullopt);
  const auto baselines = fresh_dir("first_baselines");
  auto published = publish_ok(options_for(reports, baselines));
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
  auto twice = publish_ok(options_for(reports, baselines));
  EXPECT_FALSE(twice[0].changed);
  EXPECT_EQ(load_baseline_file(baseline_path(baselines, kWorkload, "h100-sxm")).history.size(), 4u);
}

TEST(Publish, ReplacedRecordIsKeptInHistory) {
  RunResult run = fixture_run("run_h100.json");
  candidate(run, "fused_tf32").latency->mean_ms = 0.70;
  const auto reports = reports_of("replace", run, fixture_baseline("matching.json"));
  const auto baselines = baselines_with("replace", "matching.json");
  auto published = publish_ok(options_for(reports, baselines));
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
      EXPECT_THAT(entry.origin, HasSubstr("l1_071_conv_transposed_2d.h100-sxm.json"));
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
  auto published = publish_ok(options);
  EXPECT_EQ(read_text(file), before);
  ASSERT_EQ(published.size(), 1u);
  EXPECT_TRUE(published[0].changed);
  std::string diff;
  for (const auto& line : published[0].diff) diff += line + "\n";
  EXPECT_THAT(diff, HasSubstr("~ implicit_gemm_tf32: implicit_gemm_tf32 (tf32) 0.8 ms"));
  EXPECT_THAT(diff, HasSubstr("-> 0.55 ms (-31.2%)"));
  EXPECT_THAT(diff, HasSubstr("ranking: 1. fused_tf32, 2. implicit_gemm_tf32"));
  EXPECT_THAT(diff, HasSubstr("->  1. implicit_gemm_tf32, 2. fused_tf32"));
}

TEST(Publish, CorruptBaselineIsAnErrorNamingItAndIsNotOverwritten) {
  const auto reports = reports_of("corrupt", fixture_run("run_h100.json"), std::nullopt);
  const auto baselines = baselines_with("corrupt", "corrupt.json");
  const auto file = baseline_path(baselines, kWorkload, "h100-sxm");
  const std::string before = read_text(file);
  const PublishResult result = publish_reports(options_for(reports, baselines));
  ASSERT_EQ(result.errors.size(), 1u) << "publish accepted a corrupt baseline file";
  EXPECT_THAT(result.errors[0], HasSubstr(file.string() + ": not valid JSON"));
  EXPECT_FALSE(result.written);
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
        code = publish_reports(options_for(report_dirs[i], baselines)).written ? 0 : 1;
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

// A store named by a file is said to be a file, not a missing folder to create.
TEST(Publish, ABaselinesPathThatIsAFileIsSaidToBeOne) {
  const auto dir = fresh_dir("baselines_is_a_file");
  const auto file = dir / "baselines.json";
  std::ofstream(file) << "{}\n";
  EXPECT_THAT(test::error_of([&] { publish_reports(options_for(fresh_dir("reports_for_a_file"), file)); }),
              HasSubstr("--baselines " + file.string() + ": is a file, not a folder"));
  EXPECT_THAT(test::error_of([&] { publish_reports(options_for(dir, dir / "missing")); }),
              HasSubstr(": no such folder (create it to start a store)"));
}


// ---- what a publish must refuse, and how it fails --------------------------

nlohmann::ordered_json json_of(const std::filesystem::path& file) { return test::read_json(file); }
void write_json(const std::filesystem::path& file, const nlohmann::ordered_json& json) {
  std::ofstream(file) << json.dump(2) << "\n";
}
std::filesystem::path report_in(const std::filesystem::path& dir) { return dir / (kWorkload + ".h100-sxm.json"); }

// The files in a folder and below it, relative to it.
std::vector<std::string> listing(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    names.push_back(std::filesystem::relative(entry.path(), dir).string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(Publish, AKeyThatWouldLeaveTheStoreIsRefused) {
  const auto reports = reports_of("escape", fixture_run("run_h100.json"), std::nullopt);
  auto report = json_of(report_in(reports));
  report["hardware"] = "../../escape";
  write_json(report_in(reports), report);
  const auto baselines = fresh_dir("escape_baselines");
  const PublishResult result = publish_reports(options_for(reports, baselines));
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_THAT(result.errors[0], HasSubstr("$.hardware: '../../escape' has a character outside [a-z0-9_.-]"));
  EXPECT_TRUE(listing(baselines).empty());
  EXPECT_FALSE(std::filesystem::exists(baselines.parent_path() / "escape.json"));

  report["hardware"] = "h100-sxm";
  report["workload"]["id"] = "l9_999_not_a_suite";
  write_json(report_in(reports), report);
  const PublishResult unknown = publish_reports(options_for(reports, baselines));
  ASSERT_EQ(unknown.errors.size(), 1u);
  EXPECT_THAT(unknown.errors[0],
              HasSubstr("$.workload.id: 'l9_999_not_a_suite' is not a workload of the loaded suites"));
}

TEST(Publish, ARecordGoesOnlyIntoTheKeyOfTheHardwareItWasMeasuredOn) {
  // An interpret-mode report edited to say h100-sxm.
  RunResult cpu_run = fixture_run("run_cpu_interpret.json");
  const auto reports = reports_of("relabel", cpu_run, std::nullopt);
  const auto cpu_report = reports / (kWorkload + ".cpu.json");
  auto report = json_of(cpu_report);
  report["hardware"] = "h100-sxm";
  std::filesystem::remove(cpu_report);
  write_json(report_in(reports), report);
  const auto baselines = fresh_dir("relabel_baselines");
  const PublishResult result = publish_reports(options_for(reports, baselines));
  ASSERT_FALSE(result.errors.empty());
  EXPECT_THAT(result.errors[0],
              HasSubstr("an interpret-mode (cpu, wall-clock) record cannot go into the GPU key h100-sxm"));
  EXPECT_TRUE(listing(baselines).empty());

  // A GPU report of an H200 relabelled as an H100.
  RunResult h200 = fixture_run("run_h100.json");
  const auto gpu_reports = reports_of("relabel_gpu", h200, std::nullopt);
  auto gpu_report = json_of(report_in(gpu_reports));
  for (auto& candidate : gpu_report["candidates"])
    if (candidate.contains("record") && candidate["record"].is_object())
      candidate["record"]["environment"]["gpu"] = "NVIDIA H200";
  write_json(report_in(gpu_reports), gpu_report);
  const PublishResult wrong_gpu = publish_reports(options_for(gpu_reports, baselines));
  ASSERT_FALSE(wrong_gpu.errors.empty());
  EXPECT_THAT(wrong_gpu.errors[0], HasSubstr("measured on NVIDIA H200 (key h200), not h100-sxm"));
}

TEST(Publish, SeveralWorkloadsChangeTogetherOrNotAtAll) {
  RunResult first = fixture_run("run_h100.json");
  candidate(first, "fused_tf32").latency->mean_ms = 0.55;
  RunResult second = fixture_run("run_h100.json");
  second.workload = kOtherWorkload;
  second.axes = stock_suite(kOtherWorkload).resolve_axes("ci");
  const auto reports = reports_of("together", first, fixture_baseline("matching.json"));
  write_reports(reports, *reported(second, std::nullopt));
  const auto baselines = baselines_with("together", "matching.json");
  std::filesystem::create_directories(baselines / kOtherWorkload);
  std::filesystem::copy_file(test::baseline_fixture_dir() / "corrupt.json", baselines / kOtherWorkload / "h100-sxm.json");
  const auto first_file = baseline_path(baselines, kWorkload, "h100-sxm");
  const std::string before = read_text(first_file);

  const PublishResult result = publish_reports(options_for(reports, baselines));
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_THAT(result.errors[0], HasSubstr(kOtherWorkload + "/h100-sxm.json: not valid JSON"));
  EXPECT_FALSE(result.written);
  EXPECT_EQ(read_text(first_file), before);  // the good file was not rewritten either
  // ...and what it would have become is still said.
  ASSERT_FALSE(result.files.empty());
  EXPECT_EQ(result.files[0].file, first_file);
  EXPECT_THAT(joined(result.files[0].diff), HasSubstr("~ fused_tf32: fused_tf32 (tf32) 0.6 ms"));
  EXPECT_EQ(listing(baselines).size(), 4u);  // two folders, two files, no temporary file

  std::filesystem::remove(baselines / kOtherWorkload / "h100-sxm.json");
  const auto both = publish_ok(options_for(reports, baselines));
  ASSERT_EQ(both.size(), 2u);
  EXPECT_DOUBLE_EQ(load_baseline_file(first_file).find("fused_tf32", Trust::measured)->latency.mean_ms, 0.55);
  EXPECT_TRUE(std::filesystem::exists(baseline_path(baselines, kOtherWorkload, "h100-sxm")));
}

// Every file and folder below `dir` with its bytes (a folder's are empty).
std::map<std::string, std::string> snapshot(const std::filesystem::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    files[std::filesystem::relative(entry.path(), dir).string()] = entry.is_regular_file() ? read_text(entry.path()) : "";
  return files;
}

std::string simulated_refusal(const std::filesystem::path& report) {
  return "publish: " + report.string() +
         " is a run on the simulated GPU (sim-h100-sxm): a simulated run is never a measurement, so it is not "
         "published";
}

// A report of the simulated GPU is refused before anything is written, alone
// or beside a report that would change the store: the store stays byte for
// byte as it was, and no file is made for the simulated key.
TEST(Publish, ARunOnTheSimulatedGpuIsRefusedAndNothingIsWritten) {
  RunResult slower = fixture_run("run_h100.json");
  candidate(slower, "fused_tf32").latency->mean_ms = 0.70;
  const auto reports = reports_of("simulated", simulated_run(), std::nullopt);
  const auto simulated_report = reports / (kWorkload + ".sim-h100-sxm.json");
  ASSERT_TRUE(std::filesystem::exists(simulated_report));
  const auto baselines = baselines_with("simulated", "matching.json");
  const auto before = snapshot(baselines);

  const PublishResult alone = publish_reports(options_for(reports, baselines));
  EXPECT_EQ(alone.errors, std::vector<std::string>{simulated_refusal(simulated_report)});
  EXPECT_FALSE(alone.written);
  EXPECT_EQ(snapshot(baselines), before);

  write_reports(reports, *reported(slower, fixture_baseline("matching.json")));
  const PublishResult beside = publish_reports(options_for(reports, baselines));
  EXPECT_EQ(beside.errors, std::vector<std::string>{simulated_refusal(simulated_report)});
  EXPECT_FALSE(beside.written);
  EXPECT_EQ(snapshot(baselines), before);

  // Without it, the other report does change the store: the refusal, not
  // the other report, kept it as it was.
  std::filesystem::remove(simulated_report);
  publish_ok(options_for(reports, baselines));
  EXPECT_NE(snapshot(baselines), before);
  EXPECT_FALSE(std::filesystem::exists(baselines / kWorkload / "sim-h100-sxm.json"));
}

// A record under its floor (floor_rule.hpp) is refused, however it got into
// a report (its run's gate fails it, so here the report is made without that
// rule, as an edited one would be), and nothing is written.
TEST(Publish, ARecordUnderItsFloorIsRefusedAndNothingIsWritten) {
  RunResult run = fixture_run("run_h100.json");
  run.axes = stock_suite(kWorkload).default_axes();  // floor 0.306 ms on h100-sxm
  candidate(run, "fused_tf32").latency = latency_statistics({0.09, 0.1, 0.11}, "adaptive", "cuda_event", 0);
  const auto reports = reports_of("under_floor", run, std::nullopt);
  const auto baselines = fresh_dir("under_floor_baselines");
  const auto before = snapshot(baselines);
  const PublishResult result = publish_reports(options_for(reports, baselines));
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_THAT(result.errors[0], HasSubstr("below_floor: a median of 0.1 ms is under 0.5 of the tf32 floor"));
  EXPECT_THAT(result.errors[0], HasSubstr("not published"));
  EXPECT_FALSE(result.written);
  EXPECT_EQ(snapshot(baselines), before);
}

// A simulated record goes under no key: a report of the simulated GPU
// relabelled h100-sxm is refused by its records, however much of them was
// edited, and the store refuses one given to it directly.
TEST(Publish, ASimulatedRecordIsRefusedUnderAnyKey) {
  const auto reports = reports_of("relabel_simulated", simulated_run(), std::nullopt);
  const auto simulated_report = reports / (kWorkload + ".sim-h100-sxm.json");
  auto report = json_of(simulated_report);
  report["hardware"] = "h100-sxm";
  std::filesystem::remove(simulated_report);
  const auto baselines = baselines_with("relabel_simulated", "matching.json");
  const auto before = snapshot(baselines);
  auto refusal = [&](const nlohmann::ordered_json& edited) {
    write_json(report_in(reports), edited);
    const PublishResult result = publish_reports(options_for(reports, baselines));
    EXPECT_FALSE(result.written);
    EXPECT_EQ(snapshot(baselines), before);
    return result.errors.empty() ? std::string() : result.errors[0];
  };
  const std::string never = "a simulated run is never a measurement, so it is not published";
  EXPECT_THAT(refusal(report), HasSubstr(": $.candidates[0].record: a record of the simulated GPU (trust simulated): " + never));
  for (auto& candidate : report["candidates"])
    if (candidate["record"].is_object()) candidate["record"]["trust"] = "measured";
  EXPECT_THAT(refusal(report), HasSubstr("(environment hardware sim-h100-sxm): " + never));
  for (auto& candidate : report["candidates"])
    if (candidate["record"].is_object()) candidate["record"]["environment"]["hardware"] = "h100-sxm";
  EXPECT_THAT(refusal(report), HasSubstr("(environment device sim:h100-sxm): " + never));

  BaselineFile file = fixture_baseline("matching.json");
  const nlohmann::ordered_json unchanged = file;
  BaselineRecord simulated = file.records[2];
  simulated.trust = Trust::simulated;
  std::vector<std::string> diff, refused;
  const MergeOptions merge{"report", "tester", "2026-03-10T12:00:00Z"};
  EXPECT_THAT(test::error_of([&] { merge_records(file, {file.records[1], simulated}, merge, diff, refused); }),
              HasSubstr("is a simulated record, and none is ever stored"));
  EXPECT_EQ(nlohmann::ordered_json(file), unchanged);
}

// A store holding matching.json and a report in which fused_tf32 got slower
// (0.70 ms against the stored 0.60): a publish that would change one file.
struct SlowerFusedTf32 {
  std::filesystem::path reports, baselines, file;
  explicit SlowerFusedTf32(const std::string& name) {
    RunResult run = fixture_run("run_h100.json");
    candidate(run, "fused_tf32").latency->mean_ms = 0.70;
    reports = reports_of(name, run, fixture_baseline("matching.json"));
    baselines = baselines_with(name, "matching.json");
    file = baseline_path(baselines, kWorkload, "h100-sxm");
  }
};

TEST(Publish, AnOlderRecordDoesNotReplaceANewerOneWithoutForce) {
  const SlowerFusedTf32 store("older");  // the report's run started 2026-03-10T12:00:00Z
  const auto& [reports, baselines, file] = store;
  auto stored = json_of(file);
  for (auto& record : stored["records"])
    if (record["implementation"] == "fused_tf32") record["observed"] = "2026-03-10T13:00:00Z";
  write_json(file, stored);

  PublishResult refused = publish_reports(options_for(reports, baselines));
  EXPECT_TRUE(refused.errors.empty()) << joined(refused.errors);
  ASSERT_EQ(refused.refused.size(), 1u);
  EXPECT_THAT(refused.refused[0],
              HasSubstr("fused_tf32 observed 2026-03-10T12:00:00Z is older than the stored record"));
  EXPECT_DOUBLE_EQ(load_baseline_file(file).find("fused_tf32", Trust::measured)->latency.mean_ms, 0.60);

  auto options = options_for(reports, baselines);
  options.force = true;
  EXPECT_TRUE(publish_reports(options).refused.empty());
  EXPECT_DOUBLE_EQ(load_baseline_file(file).find("fused_tf32", Trust::measured)->latency.mean_ms, 0.70);
}

TEST(Publish, AStoppedPublishLeavesNoTemporaryFileAndChangesNothing) {
  const SlowerFusedTf32 store("stopped");
  const auto& [reports, baselines, file] = store;
  const std::string before = read_text(file);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto options = options_for(reports, baselines);
    // CI's timeout stops the publish once its temporary files exist.
    options.before_replace = [] { ::raise(SIGTERM); };
    publish_reports(options);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  EXPECT_EQ(listing(baselines), (std::vector<std::string>{kWorkload, kWorkload + "/h100-sxm.json"}));
  EXPECT_EQ(read_text(file), before);
}

TEST(Publish, KeepsTheFileModeAndRefusesReadOnlyFilesAndLinks) {
  const SlowerFusedTf32 store("mode");
  const auto& [reports, baselines, file] = store;
  using std::filesystem::perms;
  const perms group_writable = perms::owner_read | perms::owner_write | perms::group_read | perms::group_write;
  std::filesystem::permissions(file, group_writable);

  std::filesystem::permissions(file, perms::owner_read | perms::group_read);
  PublishResult read_only = publish_reports(options_for(reports, baselines));
  ASSERT_EQ(read_only.errors.size(), 1u);
  EXPECT_THAT(read_only.errors[0], HasSubstr(file.string() + ": is read-only"));

  std::filesystem::permissions(file, group_writable);
  const auto target = baselines / "elsewhere.json";
  std::filesystem::rename(file, target);
  std::filesystem::create_symlink(target, file);
  PublishResult linked = publish_reports(options_for(reports, baselines));
  ASSERT_EQ(linked.errors.size(), 1u);
  EXPECT_THAT(linked.errors[0], HasSubstr(file.string() + ": is a symbolic link"));

  std::filesystem::remove(file);
  std::filesystem::rename(target, file);
  publish_ok(options_for(reports, baselines));
  EXPECT_EQ(std::filesystem::status(file).permissions(), group_writable);
}

// An interpret-mode record of direct_fp32 on the cpu key, counted or not.
BaselineRecord cpu_record(Trust trust, double mean_ms, const std::string& observed) {
  BaselineRecord record;
  record.implementation = "direct_fp32";
  record.precision = "fp32";
  record.trust = trust;
  record.latency.mean_ms = mean_ms;
  record.observed = observed;
  if (trust == Trust::modelled) record.counters = {{"global_load_requests", 3456129}};
  return record;
}

TEST(Publish, OnTheCpuKeyACountedRecordReplacesAnUncountedOne) {
  BaselineFile file;
  file.workload = kOtherWorkload;
  file.hardware = std::string(kCpuHardwareKey);
  file.records = {cpu_record(Trust::measured, 527.0, "2026-12-04T02:06:06Z")};
  std::vector<std::string> diff, refused;
  MergeOptions options{"report", "tester", "2026-12-04T05:00:00Z"};
  const BaselineRecord counted = cpu_record(Trust::modelled, 265.0, "2026-12-04T05:00:00Z");
  EXPECT_TRUE(merge_records(file, {counted}, options, diff, refused));
  EXPECT_TRUE(refused.empty()) << joined(refused);
  ASSERT_EQ(file.records.size(), 1u) << joined(diff);  // one record stands for the implementation
  EXPECT_EQ(file.records[0].trust, Trust::modelled);
  ASSERT_EQ(file.history.size(), 1u);
  EXPECT_EQ(file.history[0].action, "replaced");
  ASSERT_TRUE(file.history[0].previous.has_value());
  EXPECT_EQ(file.history[0].previous->trust, Trust::measured);
  ASSERT_EQ(file.ranking.size(), 1u);

  // An uncounted record would drop the counters the cpu gate judges: refused,
  // however new, unless forced.
  const BaselineRecord uncounted = cpu_record(Trust::measured, 260.0, "2026-12-04T06:00:00Z");
  EXPECT_FALSE(merge_records(file, {uncounted}, options, diff, refused));
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_THAT(refused[0], HasSubstr("direct_fp32 has a record with counters"));
  EXPECT_EQ(file.records[0].trust, Trust::modelled);
  options.force = true;
  EXPECT_TRUE(merge_records(file, {uncounted}, options, diff, refused));
  ASSERT_EQ(file.records.size(), 1u);
  EXPECT_EQ(file.records[0].trust, Trust::measured);
}

TEST(Publish, OnAGpuKeyMeasuredAndModelledRecordsAreNotMerged) {
  // A GPU key never holds a modelled record (publish refuses one); merged
  // directly, the two stay apart there, as measured and reported do.
  BaselineFile file;
  file.workload = kOtherWorkload;
  file.hardware = "h100-sxm";
  file.records = {cpu_record(Trust::measured, 1.0, "2026-12-04T02:06:06Z")};
  std::vector<std::string> diff, refused;
  const MergeOptions options{"report", "tester", "2026-12-04T05:00:00Z"};
  EXPECT_TRUE(merge_records(file, {cpu_record(Trust::modelled, 2.0, "2026-12-04T05:00:00Z")}, options, diff, refused));
  EXPECT_EQ(file.records.size(), 2u);
}

TEST(Publish, TemporaryFilesAreIgnoredByGit) {
  // A publish killed with SIGKILL cannot clean up: its temporary file must
  // then be one that `git add` (the publish workflow) never picks up.
  const std::string source = KERNELGATE_SOURCE_ROOT;
  if (std::system(("git -C '" + source + "' rev-parse --git-dir >/dev/null 2>&1").c_str()) != 0)
    GTEST_SKIP() << "not a git checkout";
  const std::string temporary = "baselines/" + kWorkload + "/.h100-sxm.json" + kTemporarySuffix + "a1B2c3";
  EXPECT_EQ(std::system(("git -C '" + source + "' check-ignore -q '" + temporary + "'").c_str()), 0) << temporary;
}

}  // namespace
}  // namespace kg
