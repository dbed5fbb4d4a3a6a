// The end of `kernelgate run`: gate, reports, table, exit code (conclude.hpp).
#include "kernelgate/detail/conclude.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>

#include "kernelgate/detail/baseline.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/floor_rule.hpp"
#include "kernelgate/detail/gate.hpp"
#include "kernelgate/detail/hardware.hpp"
#include "kernelgate/detail/json_reader.hpp"
#include "kernelgate/detail/report.hpp"

namespace kg {

void ensure_report_dir_writable(const std::filesystem::path& report_dir) {
  ensure_writable_folder("--report-dir", report_dir);
}

namespace {

std::optional<LatencyFloors> floors_for(const Suite& suite, const RunResult& run) {
  // Interpret mode times a CPU emulating a GPU: no floor says anything there.
  if (run.hardware == "cpu" || run.hardware.empty()) return std::nullopt;
  try {
    const HardwareSpec& spec = hardware_spec(run.hardware);
    Floors f = floors(suite, run.axes, spec);
    LatencyFloors result;
    result.hardware = run.hardware;
    result.memory_ms = f.memory_ms;
    result.compute_ms = {{"fp32", f.fp32_ms}, {"tf32", f.tf32_ms}, {"bf16", f.bf16_ms}, {"fp16", f.bf16_ms}};
    return result;
  } catch (const Error&) {
    return std::nullopt;  // a GPU without known peaks: no floor column
  }
}

}  // namespace

void write_setup_error(const std::filesystem::path& report_dir, const std::string& workload,
                       const std::string& hardware, const std::string& message) {
  if (store_key_problem(workload) || store_key_problem(hardware)) return;
  try {
    ensure_report_dir_writable(report_dir);
    write_file_atomically(report_dir / (workload + "." + hardware + ".junit.xml"),
                          junit_setup_error_xml(workload, hardware, message));
  } catch (const Error&) {
    // The report folder itself is the problem; the error is printed anyway.
  }
}

std::vector<RunResult> load_run_results(const std::filesystem::path& file) {
  const nlohmann::ordered_json json = read_json_file(file);
  const nlohmann::ordered_json runs = json.is_array() ? json : nlohmann::ordered_json::array({json});
  std::vector<RunResult> results;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string where = file.string() + ": run " + std::to_string(i);
    const std::string path = json.is_array() ? "$[" + std::to_string(i) + "]" : "$";
    RunResult run;
    try {
      run = read_run_result(JsonReader(runs.at(i), file.string(), path));
    } catch (const Error& e) {
      throw Error(where + ": not the results of kernelgate run (" + e.what() + ")");
    }
    if (auto why = store_key_problem(run.workload)) throw Error(where + ": workload id " + *why);
    if (auto why = store_key_problem(run.hardware)) throw Error(where + ": hardware key " + *why);
    for (const auto& candidate : run.candidates) {
      if (!candidate.latency || candidate.latency->samples_ms.empty()) continue;
      const LatencyStats& latency = *candidate.latency;
      // The gate judges the samples; the figures beside them must be theirs.
      if (std::int64_t(latency.samples_ms.size()) != latency.n)
        throw Error(where + ": candidate " + candidate.id + " has n = " + std::to_string(latency.n) + " but " +
                    std::to_string(latency.samples_ms.size()) + " samples");
      for (double sample : latency.samples_ms)
        if (!(sample > 0) || !std::isfinite(sample))
          throw Error(where + ": candidate " + candidate.id + " has a sample that is not a latency > 0");
    }
    results.push_back(std::move(run));
  }
  return results;
}

int conclude_run(const Suite& suite, RunResult& run, const ConcludeOptions& options) {
  const auto baseline_file = baseline_path(options.baselines_dir, run.workload, run.hardware);
  const std::optional<BaselineFile>& baseline = options.baseline;

  GateOptions gate_options;
  gate_options.policy = options.policy;
  gate_options.today_days = today_utc_days();
  apply_floor_rule(suite, run);  // a time no hardware reaches is never gated, ranked or published
  const GateVerdict verdict = evaluate_gate(run, baseline ? &*baseline : nullptr, gate_options);
  apply_gate(run, verdict);

  ReportInput input;
  input.run = &run;
  input.verdict = &verdict;
  input.baseline = baseline ? &*baseline : nullptr;
  input.baseline_file = baseline_file.string();
  input.policy = options.policy;
  input.today_days = gate_options.today_days;
  input.title = suite.title;
  try {
    input.flops = suite.flops(run.axes);
    input.bytes = suite.bytes(run.axes);
  } catch (const Error&) {
    // A suite without the figures still gets its reports.
  }
  input.floors = floors_for(suite, run);
  input.finished_at = utc_timestamp_now();
  input.exit_code = gate_exit_code(run);

  ensure_report_dir_writable(options.report_dir);
  const auto stem = options.report_dir / report_stem(run);
  const auto json = report_json(input);
  write_file_atomically(stem.string() + ".json", json.dump(2) + "\n");
  write_file_atomically(stem.string() + ".junit.xml", junit_xml(input));
  const std::string markdown = markdown_summary(json);
  write_file_atomically(stem.string() + ".md", markdown);

  if (options.json_stdout) {
    std::cout << json.dump(2) << "\n";
  } else if (!options.quiet) {
    std::cout << "\n" << markdown << "Reports: " << stem.string() << ".{json,junit.xml,md}\n";
  }
  std::cout.flush();
  return input.exit_code;
}

}  // namespace kg
