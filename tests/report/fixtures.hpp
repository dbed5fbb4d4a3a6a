#pragma once
// Loading the fixture runs and baselines of tests/report/fixtures.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kernelgate/detail/baseline.hpp"
#include "kernelgate/detail/gate.hpp"
#include "kernelgate/detail/report.hpp"
#include "kernelgate/detail/result.hpp"

namespace kg::test {

// What a message must or must not contain, for every test of the reports.
using ::testing::HasSubstr;
using ::testing::Not;

inline std::filesystem::path fixture_dir() {
  return std::filesystem::path(KERNELGATE_TEST_DATA_DIR) / "report" / "fixtures";
}

inline nlohmann::ordered_json read_json(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read fixture " + file.string());
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::ordered_json::parse(text.str());
}

inline RunResult fixture_run(const std::string& name) {
  return read_json(fixture_dir() / name).get<RunResult>();
}

// The baseline fixtures, one per verdict, that the build writes from
// fixtures/baseline.json (fixtures/make_baselines.py).
inline std::filesystem::path baseline_fixture_dir() { return KERNELGATE_BASELINE_FIXTURE_DIR; }

inline BaselineFile fixture_baseline(const std::string& name) {
  return load_baseline_file(baseline_fixture_dir() / name);
}

// The day the fixture gates are judged on: 2026-03-15, five days after the
// fixture run, fourteen after the fixture records were observed.
inline long fixture_today() { return *iso_date_days("2026-03-15"); }

inline GateOptions fixture_options(GatePolicy policy = {}) {
  GateOptions options;
  options.policy = policy;
  options.today_days = fixture_today();
  return options;
}

// The fixture H100 run as the simulated GPU reports it: the card's own name
// in the environment, the "sim-" key and the "sim:" device.
inline RunResult simulated_run() {
  RunResult run = fixture_run("run_h100.json");
  run.hardware = "sim-h100-sxm";
  run.device = "sim:h100-sxm";
  run.environment["hardware"] = run.hardware;
  run.environment["device"] = run.device;
  return run;
}

inline CandidateResult& candidate(RunResult& run, const std::string& id) {
  for (auto& c : run.candidates)
    if (c.id == id) return c;
  throw std::runtime_error("no candidate " + id + " in the fixture run");
}

inline const CheckResult& check(const CandidateResult& candidate, const std::string& name) {
  for (const auto& c : candidate.checks)
    if (c.name == name) return c;
  throw std::runtime_error("no check " + name + " for " + candidate.id);
}

// A gated fixture run and everything its reports are made from.
struct Reported {
  RunResult run;
  std::optional<BaselineFile> baseline;
  GateVerdict verdict;
  ReportInput input;
};

inline std::unique_ptr<Reported> reported(RunResult run, std::optional<BaselineFile> baseline) {
  auto r = std::make_unique<Reported>();
  r->run = std::move(run);
  r->baseline = std::move(baseline);
  r->verdict = evaluate_gate(r->run, r->baseline ? &*r->baseline : nullptr, fixture_options());
  apply_gate(r->run, r->verdict);
  r->input.run = &r->run;
  r->input.verdict = &r->verdict;
  r->input.baseline = r->baseline ? &*r->baseline : nullptr;
  r->input.baseline_file = "baselines/" + r->run.workload + "/" + r->run.hardware + ".json";
  r->input.today_days = fixture_today();
  r->input.title = "ConvTranspose2d 32->32, k=3";
  r->input.flops = 77.3e9;
  r->input.bytes = 1.077e9;
  if (r->run.hardware != "cpu") {
    LatencyFloors floors;
    floors.hardware = r->run.hardware;
    floors.memory_ms = 0.32;
    floors.compute_ms = {{"fp32", 1.15}, {"tf32", 0.16}};
    r->input.floors = floors;
  }
  r->input.finished_at = "2026-03-10T12:05:00Z";
  r->input.exit_code = gate_exit_code(r->run);
  return r;
}

inline std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::path(testing::TempDir()) / ("kg_report_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline void write_reports(const std::filesystem::path& dir, const Reported& r) {
  const auto stem = dir / report_stem(r.run);
  const auto json = report_json(r.input);
  write_file_atomically(stem.string() + ".json", json.dump(2) + "\n");
  write_file_atomically(stem.string() + ".junit.xml", junit_xml(r.input));
  write_file_atomically(stem.string() + ".md", markdown_summary(json));
}

// n samples spread evenly over typical * (1 -+ spread / 2); with a heavy
// tail, every 20th is 10 times slower (a neighbour, an interrupt).
inline std::vector<double> samples_around(double typical, double spread, int n, bool heavy_tail = false) {
  std::vector<double> samples;
  for (int i = 0; i < n; ++i) {
    double sample = typical * (1 + spread * (double(i) / (n - 1) - 0.5));
    if (heavy_tail && i % 20 == 7) sample *= 10;
    samples.push_back(sample);
  }
  return samples;
}

inline void set_samples(LatencyStats& latency, std::vector<double> samples) {
  double sum = 0, squares = 0;
  for (double s : samples) sum += s;
  latency.n = std::int64_t(samples.size());
  latency.mean_ms = sum / double(latency.n);
  for (double s : samples) squares += (s - latency.mean_ms) * (s - latency.mean_ms);
  latency.std_ms = std::sqrt(squares / double(latency.n - 1));
  latency.cv = latency.std_ms / latency.mean_ms;
  latency.samples_ms = std::move(samples);
}

}  // namespace kg::test
