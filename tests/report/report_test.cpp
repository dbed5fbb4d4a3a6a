// The JSON, JUnit and Markdown reports of gated fixture runs. The
// FixtureReports test also writes reports that CTest then validates against
// docs/report.schema.json and the junit-10 XSD (see CMakeLists.txt).
#include <gtest/gtest.h>

#include <tinyxml2.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>

#include "fixtures.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/json_reader.hpp"
#include "kernelgate/detail/report.hpp"

namespace kg {
namespace {

using namespace test;  // the fixtures and matchers (fixtures.hpp)

// A run with one incorrect candidate and one that crashed before any check.
RunResult run_with_failures() {
  RunResult run = fixture_run("run_h100.json");
  auto& fused = candidate(run, "fused_tf32");
  fused.outcome = Outcome::incorrect;
  fused.message = "max abs error 0.31 at flat index 17 (got 1.2, want 0.89)";
  fused.checks[0].outcome = Outcome::incorrect;
  fused.checks[0].message = fused.message;
  fused.error->max_abs = std::nan("");
  fused.error->non_finite = true;
  auto& implicit = candidate(run, "implicit_gemm_tf32");
  implicit.outcome = Outcome::crashed;
  implicit.message = "child process killed by signal 11 (SIGSEGV)";
  implicit.checks.clear();
  implicit.latency.reset();
  return run;
}

const nlohmann::ordered_json& candidate_json(const nlohmann::ordered_json& report, const std::string& id) {
  for (const auto& c : report.at("candidates"))
    if (c.at("id") == id) return c;
  throw std::runtime_error("no candidate " + id);
}

TEST(ReportJson, HoldsVerdictsRecordsAndRanking) {
  auto r = reported(fixture_run("run_h100.json"), fixture_baseline("regressed.json"));
  auto json = report_json(r->input);
  EXPECT_EQ(json.at("schema_version"), kReportSchemaVersion);
  EXPECT_EQ(json.at("kind"), kReportKind);
  EXPECT_EQ(json.at("outcome"), "failed");
  EXPECT_EQ(json.at("exit_code"), 1);
  EXPECT_EQ(json.at("workload").at("axes").at("batch_size"), 2);
  const auto& fused = candidate_json(json, "fused_tf32");
  EXPECT_EQ(fused.at("outcome"), "regressed");
  EXPECT_DOUBLE_EQ(fused.at("gate").at("baseline_mean_ms").get<double>(), 0.50);
  EXPECT_EQ(fused.at("record").at("trust"), "measured");
  // The record in the report is a valid baseline record: publish reads it back.
  EXPECT_NO_THROW(parse_baseline_record(fused.at("record"), "report"));

  // Ranking: this run's four candidates and the two reported KernelBench figures.
  const auto& ranking = json.at("ranking");
  ASSERT_EQ(ranking.size(), 6u);
  EXPECT_EQ(ranking[0].at("implementation"), "fused_tf32");
  EXPECT_DOUBLE_EQ(ranking[0].at("vs_first").get<double>(), 1.0);
  EXPECT_NEAR(ranking[0].at("speedup_over_eager").get<double>(), 1.5 / 0.6, 1e-12);
  EXPECT_NEAR(ranking[0].at("above_floor").get<double>(), 0.6 / 0.32, 1e-12);
  EXPECT_NEAR(ranking[0].at("floor_ms").get<double>(), 0.32, 1e-12);
  const auto& last = ranking[5];
  EXPECT_EQ(last.at("implementation"), "torch_compile_inductor");
  EXPECT_EQ(last.at("trust"), "reported");
  EXPECT_NEAR(last.at("speedup_over_eager").get<double>(), 1.58 / 1.60, 1e-12);
}

TEST(ReportJson, CandidatesThatFailedAreNotRanked) {
  auto r = reported(run_with_failures(), fixture_baseline("matching.json"));
  auto json = report_json(r->input);
  for (const auto& row : json.at("ranking")) {
    EXPECT_NE(row.at("implementation"), "fused_tf32");
    EXPECT_NE(row.at("implementation"), "implicit_gemm_tf32");
  }
  EXPECT_TRUE(candidate_json(json, "implicit_gemm_tf32").at("record").is_null());
  EXPECT_EQ(json.at("counts").at("failed"), 2);
}

TEST(JUnit, OneTestcasePerCandidateAndCheckWithFailures) {
  auto r = reported(run_with_failures(), fixture_baseline("stale_age.json"));
  const std::string xml = junit_xml(r->input);
  tinyxml2::XMLDocument document;
  ASSERT_EQ(document.Parse(xml.c_str()), tinyxml2::XML_SUCCESS);
  const auto* suite = document.FirstChildElement("testsuites")->FirstChildElement("testsuite");
  ASSERT_NE(suite, nullptr);
  EXPECT_STREQ(suite->Attribute("name"), "l1_071_conv_transposed_2d.h100-sxm");
  // 4 candidates x 4 checks; the crashed one adds a "run" testcase.
  EXPECT_EQ(suite->IntAttribute("tests"), 17);
  // incorrect (fused_tf32.equivalence) and stale (fused_3xtf32.staleness) fail;
  // the crash is an error.
  EXPECT_EQ(suite->IntAttribute("failures"), 2);
  EXPECT_EQ(suite->IntAttribute("errors"), 1);
  std::map<std::string, std::string> results;
  for (auto* testcase = suite->FirstChildElement("testcase"); testcase;
       testcase = testcase->NextSiblingElement("testcase")) {
    std::string result = "passed";
    if (auto* failure = testcase->FirstChildElement("failure")) result = std::string("failure:") + failure->Attribute("type");
    if (auto* error = testcase->FirstChildElement("error")) result = std::string("error:") + error->Attribute("type");
    if (testcase->FirstChildElement("skipped")) result = "skipped";
    results[testcase->Attribute("name")] = result;
  }
  EXPECT_EQ(results["fused_tf32.equivalence"], "failure:incorrect");
  EXPECT_EQ(results["fused_tf32.latency"], "skipped");
  EXPECT_EQ(results["fused_3xtf32.staleness"], "failure:stale");
  EXPECT_EQ(results["implicit_gemm_tf32.run"], "error:crashed");
  EXPECT_EQ(results["cudnn_eager.latency"], "passed");

  std::map<std::string, std::string> properties;
  for (auto* property = suite->FirstChildElement("properties")->FirstChildElement("property"); property;
       property = property->NextSiblingElement("property"))
    properties[property->Attribute("name")] = property->Attribute("value");
  EXPECT_EQ(properties["cudnn_eager.latency_ms"], "1.5");
  EXPECT_EQ(properties["fused_3xtf32.baseline_ms"], "1");
  EXPECT_EQ(properties["fused_3xtf32.precision"], "fp32");
  EXPECT_EQ(properties["fused_3xtf32.outcome"], "stale");
  EXPECT_EQ(properties["fused_tf32.max_abs_error"], "nan");
  EXPECT_EQ(properties["fused_3xtf32.ratio_to_eager"].substr(0, 5), "0.666");
}

TEST(Markdown, TableRanksEveryTimedImplementation) {
  auto r = reported(fixture_run("run_h100.json"), fixture_baseline("stale_win.json"));
  const std::string md = markdown_summary(report_json(r->input));
  EXPECT_THAT(md, HasSubstr("### ❌ l1_071_conv_transposed_2d on h100-sxm"));
  EXPECT_THAT(md, HasSubstr("| # | implementation | precision | latency (ms) | vs #1 | speedup over eager"));
  EXPECT_THAT(md, HasSubstr("| 1 | `fused_tf32` | tf32 | 0.6 | 1.00× | 2.50× | measured (this run) | "
                            "mean and spread vs measured record | 2026-03-10 |  | 0.32 | 1.88× |"));
  EXPECT_THAT(md, HasSubstr("`fused_3xtf32` | fp32 | 1 | 1.67× | 1.50× | measured (this run) | "
                            "mean and spread vs measured record | 2026-03-10 | ⚠️ stale"));
  EXPECT_THAT(md, HasSubstr("reported: KernelBench"));
  EXPECT_THAT(md, HasSubstr("faster than its record"));
  EXPECT_LT(md.size(), kMaxSummaryBytes);
}

// Every row says whether the gate judged its speed, and by which rule or
// why not, in words a reviewer reads at a glance.
TEST(Markdown, EachRowSaysWhetherItsSpeedWasJudged) {
  auto judged = reported(fixture_run("run_h100.json"), fixture_baseline("stale_win.json"));
  const auto report = report_json(judged->input);
  std::map<std::string, std::string> by_row;
  for (const auto& row : report.at("ranking")) by_row[row.at("implementation")] = row.at("judged");
  EXPECT_EQ(by_row.at("fused_tf32"), "mean and spread vs measured record");  // records without samples
  EXPECT_EQ(by_row.at("torch_eager"), "not judged: a published figure");
  auto fresh = reported(fixture_run("run_h100.json"), std::nullopt);
  for (const auto& row : report_json(fresh->input).at("ranking"))
    EXPECT_EQ(row.at("judged"), "not judged: no measured record yet") << row.at("implementation");
  // A record the gate could not compare says why, in the gate's JSON too.
  for (const auto& candidate : report.at("candidates")) {
    const auto& gate = candidate.at("gate");
    EXPECT_EQ(gate.at("rule").get<std::string>().empty(), !gate.at("unjudged").get<std::string>().empty())
        << candidate.at("id");
  }
  EXPECT_THAT(markdown_summary(report), HasSubstr("| trust | speed judged | observed |"));
}

// Far faster than the library in the same run: listed for a reviewer, not
// failed.
TEST(Markdown, FarFasterThanEagerInTheSameRunIsListedForReview) {
  RunResult run = fixture_run("run_h100.json");
  auto plain = reported(RunResult(run), std::nullopt);
  EXPECT_THAT(markdown_summary(report_json(plain->input)), Not(HasSubstr("For review")));
  candidate(run, "fused_tf32").latency->mean_ms = 0.25;  // 6x faster than cudnn_eager's 1.5 ms
  auto r = reported(std::move(run), std::nullopt);
  const auto report = report_json(r->input);
  for (const auto& row : report.at("ranking")) {
    if (row.at("implementation") == "fused_tf32")
      EXPECT_EQ(row.at("review"), "6× faster than cudnn_eager in this run (more than 5×): check that it computes "
                                  "the whole problem");
    else
      EXPECT_TRUE(row.at("review").is_null()) << row.at("implementation");
  }
  EXPECT_THAT(markdown_summary(report), HasSubstr("For review (not failures):\n\n- `fused_tf32`: 6× faster"));
  EXPECT_EQ(report.at("outcome"), "passed");
}

// A run on the simulated GPU is shown as what it is: its rows and records
// say simulated, the table never says measured, and a line says why.
TEST(Markdown, ARunOnTheSimulatedGpuIsSimulatedNeverMeasured) {
  auto r = reported(simulated_run(), std::nullopt);
  const auto report = report_json(r->input);
  ASSERT_FALSE(report.at("ranking").empty());
  for (const auto& row : report.at("ranking")) EXPECT_EQ(row.at("trust"), "simulated") << row.at("implementation");
  for (const auto& c : report.at("candidates"))
    if (!c.at("record").is_null()) {
      EXPECT_EQ(c.at("record").at("trust"), "simulated") << c.at("id");
    }
  const std::string md = markdown_summary(report);
  EXPECT_THAT(md, HasSubstr("### ✅ l1_071_conv_transposed_2d on sim-h100-sxm"));
  EXPECT_THAT(md, HasSubstr("| 1 | `fused_tf32` (new) | tf32 | 0.6 | 1.00× | 2.50× | simulated (this run) | "
                            "not judged: no measured record yet | 2026-03-10 |"));
  EXPECT_THAT(md, Not(HasSubstr("measured (this run)")));
  EXPECT_THAT(md, HasSubstr("A run on the simulated GPU: its latencies are interpret mode's, not measurements"));
  // A run on a GPU says neither.
  const std::string measured = markdown_summary(report_json(reported(fixture_run("run_h100.json"), std::nullopt)->input));
  EXPECT_THAT(measured, Not(HasSubstr("simulated")));
}

// A candidate whose latency check failed is marked in the table, whatever
// the failure: regressed, inconclusive or unreliable.
TEST(Markdown, ATimedCandidateThatFailedItsLatencyCheckIsMarkedInTheTable) {
  auto r = reported(fixture_run("run_h100.json"), fixture_baseline("regressed.json"));
  const std::string md = markdown_summary(report_json(r->input));
  EXPECT_THAT(md, HasSubstr("`fused_tf32` ❌ regressed |"));
  RunResult unreliable = fixture_run("run_h100.json");
  candidate(unreliable, "fused_tf32").latency->n = 3;
  auto u = reported(std::move(unreliable), fixture_baseline("matching.json"));
  const std::string md_unreliable = markdown_summary(report_json(u->input));
  EXPECT_THAT(md_unreliable, HasSubstr("`fused_tf32` ❌ unreliable |"));
}

TEST(Markdown, InterpretModeCountersHaveATableWithTheirRatios) {
  RunResult run = fixture_run("run_h100.json");
  auto no_counters = reported(RunResult(run), std::nullopt);
  EXPECT_THAT(markdown_summary(report_json(no_counters->input)), Not(HasSubstr("Counted in interpret mode")));
  candidate(run, "fused_tf32").counters = {
      {"global_requests", 40}, {"global_load_requests", 32}, {"global_store_requests", 8},
      {"global_load_sectors", 256}, {"global_store_sectors", 32}, {"global_bytes_requested", 4608},
      {"dram_bytes", 4096}, {"shared_requests", 64}, {"shared_wavefronts", 1056},
      {"shared_wavefronts_ideal", 64}, {"tensor_flops", 2048}, {"barriers", 1}};
  candidate(run, "implicit_gemm_tf32").counters_unavailable = "too many requests";
  auto r = reported(std::move(run), std::nullopt);
  const std::string md = markdown_summary(report_json(r->input));
  // 256 sectors over 32 loads, 32 over 8 stores, 4608 bytes of 288 x 32,
  // 1056 wavefronts where 64 would do.
  EXPECT_THAT(md, HasSubstr("| `fused_tf32` | 40 | 8.00 | 4.00 | 50% | 4096 | 64 | 16.50 | 2048 | 1 |"));
  EXPECT_THAT(md, HasSubstr("- `implicit_gemm_tf32`: too many requests"));
}

TEST(Markdown, SourceLintFindingsAreListedForReview) {
  RunResult run = fixture_run("run_h100.json");
  auto clean = reported(RunResult(run), std::nullopt);
  EXPECT_THAT(markdown_summary(report_json(clean->input)), Not(HasSubstr("Source lint findings")));
  candidate(run, "fused_tf32").source_lint = {"w/fused_tf32.cu:12: state-between-calls: static local 'calls'"};
  auto r = reported(std::move(run), std::nullopt);
  const auto report = report_json(r->input);
  EXPECT_THAT(markdown_summary(report),
              HasSubstr("Source lint findings, for review (docs/lint.md):\n\n"
                        "- `fused_tf32`: w/fused_tf32.cu:12: state-between-calls: static local 'calls'\n"));
  // The findings survive the report's JSON, as a run's results are read back.
  const CandidateResult back = read_candidate_result(JsonReader(report.at("candidates").at(1), "report.json"));
  EXPECT_EQ(back.id, "fused_tf32");
  EXPECT_THAT(back.source_lint, ::testing::ElementsAre("w/fused_tf32.cu:12: state-between-calls: static local 'calls'"));
}

TEST(ReportJson, ACountedCandidateHasItsRooflineOnEveryGpuKeyLabelledModelled) {
  RunResult run = fixture_run("run_h100.json");
  candidate(run, "fused_tf32").counters = {{"global_load_sectors", 256}, {"global_store_sectors", 32},
                                           {"dram_bytes", 4096},          {"shared_wavefronts", 1056},
                                           {"tensor_flops", 2048}};
  auto r = reported(std::move(run), std::nullopt);
  const auto report = report_json(r->input);
  const nlohmann::ordered_json* fused = nullptr;
  for (const auto& c : report.at("candidates"))
    if (c.at("id") == "fused_tf32") fused = &c;
  ASSERT_TRUE(fused);
  const auto& by_key = fused->at("model").at("hardware");
  EXPECT_EQ(by_key.size(), 9u);  // every GPU key of the table (a100-sxm ... gb200), not the cpu
  const auto& h100 = by_key.at("h100-sxm");
  EXPECT_EQ(h100.at("trust"), "modelled");
  // 1056 wavefronts at one per SM and clock (132 x 1.98 GHz) outlast 4096
  // DRAM bytes at 3.35 TB/s, 9216 L2 bytes and 2048 tensor FLOPs.
  const double shared_ms = 1056 / (132 * 1.98e9) * 1e3;
  EXPECT_EQ(h100.at("bound"), "shared");
  EXPECT_NEAR(h100.at("time_ms").get<double>(), shared_ms, 1e-15);
  EXPECT_NEAR(h100.at("terms").at("dram").at("ms").get<double>(), 4096 / 3.35e12 * 1e3, 1e-15);
  EXPECT_FALSE(h100.at("terms").contains("fp32"));  // a tensor-core kernel
  // No other candidate was counted, so none has a model.
  for (const auto& c : report.at("candidates")) {
    if (c.at("id") != "fused_tf32") {
      EXPECT_FALSE(c.contains("model")) << c.at("id");
    }
  }

  const std::string md = markdown_summary(report);
  char expected[64];
  std::snprintf(expected, sizeof expected, " | %.4g ms, shared (", shared_ms);
  EXPECT_THAT(md, HasSubstr("Modelled from the counters (trust `modelled`"));
  EXPECT_THAT(md, HasSubstr("| implementation | a100-sxm | l40s | h100-sxm | h100-pcie | h100-nvl | h200 | gh200 | b200 | gb200 |"));
  EXPECT_THAT(md, HasSubstr(expected));
}

TEST(Markdown, PipesInMessagesDoNotBreakTheTable) {
  RunResult run = run_with_failures();
  candidate(run, "fused_tf32").checks[0].message = "a | b\nc";
  auto r = reported(std::move(run), fixture_baseline("matching.json"));
  const std::string md = markdown_summary(report_json(r->input));
  EXPECT_THAT(md, HasSubstr("a \\| b c"));
  EXPECT_THAT(md, HasSubstr("`implicit_gemm_tf32`: crashed: child process killed"));
}

TEST(Summarize, JoinsEveryReportOfTheFolder) {
  const auto dir = fresh_dir("summarize");
  auto passed = reported(fixture_run("run_h100.json"), fixture_baseline("matching.json"));
  RunResult other = fixture_run("run_h100.json");
  other.workload = "l1_086_conv_depthwise_separable_2d";
  auto fresh = reported(std::move(other), std::nullopt);
  auto failed = reported(run_with_failures(), std::nullopt);
  failed->run.hardware = "h100-pcie";
  write_reports(dir, *passed);
  write_reports(dir, *fresh);
  write_reports(dir, *failed);
  const std::string summary = summarize_reports(dir);
  EXPECT_THAT(summary, HasSubstr("## kernelgate: 2 passed, 1 failed (3 workload reports)"));
  const auto first = summary.find("l1_071_conv_transposed_2d on h100-pcie");
  const auto second = summary.find("l1_071_conv_transposed_2d on h100-sxm");
  const auto third = summary.find("l1_086_conv_depthwise_separable_2d on h100-sxm");
  EXPECT_TRUE(first < second && second < third) << summary;
  std::filesystem::remove_all(dir);
}

TEST(Summarize, EmptyFolderIsAnError) {
  const auto dir = fresh_dir("summarize_empty");
  EXPECT_THROW(summarize_reports(dir), Error);
  std::filesystem::remove_all(dir);
}

// Writes reports of every shape (passed, failed with each kind of failure, new,
// interpret mode) for the schema validation test registered in CMakeLists.txt.
TEST(FixtureReports, WriteForSchemaValidation) {
  const std::filesystem::path dir = KERNELGATE_REPORT_FIXTURE_OUTPUT_DIR;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  write_reports(dir, *reported(fixture_run("run_h100.json"), fixture_baseline("rank_drift.json")));
  RunResult failures = run_with_failures();
  failures.hardware = "h100-pcie";
  write_reports(dir, *reported(std::move(failures), std::nullopt));
  RunResult fresh = fixture_run("run_h100_no_eager.json");
  fresh.workload = "l2_078_conv_transpose3d_max_max_sum";
  write_reports(dir, *reported(std::move(fresh), std::nullopt));
  write_reports(dir, *reported(fixture_run("run_cpu_interpret.json"), std::nullopt));
  write_reports(dir, *reported(simulated_run(), std::nullopt));
  EXPECT_EQ(report_files(dir).size(), 5u);
}

}  // namespace
}  // namespace kg
