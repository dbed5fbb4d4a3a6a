// kernelgate model <workload>: the roofline of every candidate at full size
// (docs/roofline.md). Each candidate runs once in interpret mode, in its own
// child, with a sample of the blocks of each launch counted and scaled to the
// grid; the counts give a modelled time per GPU key. A persistent kernel
// sizes its grid to the GPU (kg::sm_count), so keys that hold different
// grids get a counted run each. Nothing is checked or
// timed: these are `modelled` figures, for the kernel docs and for a GPU run
// to calibrate.
#include <algorithm>
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "command.hpp"
#include "kernelgate/detail/device.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/hardware.hpp"
#include "kernelgate/detail/roofline.hpp"
#include "kernelgate/detail/runner.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg::cli {
namespace {

struct ModelOptions {
  WorkloadChoice choice;
  std::string hardware = "h100-sxm,h200";
  std::string candidates;
  std::uint64_t blocks = 16;
  double timeout_s = 0;
  bool json = false;
};

std::string fixed(const char* pattern, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, pattern, value);
  return buffer;
}

// Keys with the same grid (same_grid) share one counted run: only a
// persistent kernel's grid, sized to the GPU, makes the counts depend on the
// key.
struct GridRun {
  std::vector<const HardwareSpec*> keys;  // the first sized the grids
  RunResult run;
};

std::string counters_line(const NamedCounters& counters) {
  auto n = [&](const char* name) { return double(counter(counters, name)); };
  return "ran " + fixed("%.0f", n("blocks_run")) + " of " + fixed("%.0f", n("blocks")) + " blocks in " +
         fixed("%.0f", n("launches")) + " launch(es); dram " + fixed("%.4g", n("dram_bytes") / 1e9) + " GB, l2 " +
         fixed("%.4g", 32 * (n("global_load_sectors") + n("global_store_sectors")) / 1e9) + " GB, " +
         fixed("%.4g", n("shared_wavefronts") / 1e6) + " M wavefronts (" +
         (n("shared_wavefronts_ideal") > 0 ? fixed("%.2f", n("shared_wavefronts") / n("shared_wavefronts_ideal"))
                                           : std::string("-")) +
         " x ideal), tensor " + fixed("%.4g", n("tensor_flops") / 1e9) + " GFLOP";
}

// One run per distinct SM configuration among the keys asked for: a kernel
// that sizes its grid to the GPU launches the same grid on keys alike.
std::vector<GridRun> grids_of(const std::vector<std::string>& asked) {
  std::vector<GridRun> runs;
  for (const auto& key : asked) {
    const HardwareSpec& spec = hardware_spec(key);  // an unknown key names the known ones
    if (!spec.has_roofline()) throw Error("--hardware " + key + ": no roofline figures (only GPU keys have them)");
    auto same = std::find_if(runs.begin(), runs.end(), [&](const GridRun& r) { return same_grid(*r.keys[0], spec); });
    if (same == runs.end()) same = runs.insert(runs.end(), GridRun{});
    same->keys.push_back(&spec);
  }
  if (runs.empty()) throw Error("--hardware: name at least one GPU key");
  return runs;
}

// Counts every candidate in interpret mode once per grid.
void count_on_each_grid(const Suite& suite, const ModelOptions& options, std::vector<GridRun>& runs) {
  RunOptions run_options;
  run_options.preset = options.choice.preset;
  run_options.axis_overrides = parse_axes_list(options.choice.axes);
  note_renamed_axes(suite, run_options.axis_overrides);
  run_options.candidate_ids = split_list(options.candidates);
  run_options.timing.protocol = "none";
  run_options.thread_orders = {"forward"};
  run_options.timeout_s = options.timeout_s;
  run_options.model_blocks_per_launch = options.blocks;
  const DeviceDescription device = describe_device("cpu");
  for (GridRun& grid : runs) {
    run_options.model_hardware = grid.keys[0]->key;
    grid.run = run_workload(suite, device, run_options);
    if (&grid != &runs[0]) continue;
    // The other grids count only what the first could: a candidate that is
    // unsupported or does not finish there does not on a smaller GPU either.
    run_options.candidate_ids.clear();
    for (const auto& candidate : grid.run.candidates)
      if (!candidate.counters.empty()) run_options.candidate_ids.push_back(candidate.id);
    if (run_options.candidate_ids.empty()) break;
  }
}

// One key's model in words: the summary, the floor and the occupancy.
std::string modelled_line(const nlohmann::ordered_json& m) {
  std::string text = "  " + m["summary"].get<std::string>();
  if (m.contains("not_modelled")) return text + "\n";  // no time, no occupancy (docs/roofline.md)
  if (m["floor_ms"].is_number())
    text += "; floor " + fixed("%.4g", m["floor_ms"].get<double>()) + " ms, " +
            fixed("%.2f", m["above_floor"].get<double>()) + "x";
  const auto& occupancy = m["occupancy"];
  text += "; " + std::to_string(occupancy["warps_per_sm"].get<int>()) + " of " +
          std::to_string(occupancy["max_warps_per_sm"].get<int>()) + " warps per SM (" +
          std::to_string(occupancy["blocks_per_sm"].get<int>()) + " blocks, limited by " +
          occupancy["limited_by"].get<std::string>() +
          (occupancy["registers_known"].get<bool>() ? ")" : "; registers not known)");
  return text + "\n";
}

// The models of one counted candidate on every grid's keys, in the order
// asked for, its lines appended to `text`.
nlohmann::ordered_json candidate_models(const CandidateResult& first, const std::vector<GridRun>& runs,
                                        const std::vector<std::string>& asked, double flops, double bytes,
                                        std::string& text) {
  nlohmann::ordered_json by_key = nlohmann::ordered_json::object();
  for (const GridRun& grid : runs) {
    const auto same_id = std::find_if(grid.run.candidates.begin(), grid.run.candidates.end(),
                                      [&](const CandidateResult& c) { return c.id == first.id; });
    if (same_id == grid.run.candidates.end()) continue;  // none counted (count_on_each_grid stopped)
    const CandidateResult& candidate = *same_id;
    const bool own_counts = &grid != &runs[0] && candidate.counters != first.counters;
    if (own_counts)
      text += "  with grids sized for " + grid.keys[0]->key + ": " +
              (candidate.counters.empty() ? "not counted" : counters_line(candidate.counters)) + "\n";
    if (candidate.counters.empty()) continue;
    const nlohmann::ordered_json modelled = modelled_json(candidate.counters, candidate.precision, flops, bytes, grid.keys);
    for (const auto& [key, m] : modelled.items()) {
      by_key[key] = m;
      by_key[key]["grid_sized_for"] = grid.keys[0]->key;
      if (own_counts) by_key[key]["counters"] = counters_json(candidate.counters);
      text += modelled_line(m);
    }
  }
  nlohmann::ordered_json in_order = nlohmann::ordered_json::object();
  for (const auto& key : asked)
    if (by_key.contains(key)) in_order[key] = by_key[key];
  return in_order;
}

int model_command(const ModelOptions& options, const CommonOptions& common) {
  const Suite suite = find_suite(suites_dir_of(common), options.choice.workload);
  const std::vector<std::string> asked = split_list(options.hardware);
  std::vector<GridRun> runs = grids_of(asked);
  count_on_each_grid(suite, options, runs);
  const Axes& axes = runs[0].run.axes;
  const double flops = suite.flops(axes), bytes = suite.bytes(axes);

  nlohmann::ordered_json out;
  out["workload"] = suite.id;
  out["axes"] = axes;
  out["trust"] = "modelled";
  out["blocks_per_launch"] = options.blocks;
  out["flops"] = flops;
  out["bytes"] = bytes;
  out["candidates"] = nlohmann::ordered_json::array();
  std::string text = suite.id + " at " + format_axes(axes) + "\nmodelled, not measured (docs/roofline.md): " +
                     std::to_string(options.blocks) + " blocks of each launch counted and scaled to its grid\n";
  for (const CandidateResult& first : runs[0].run.candidates) {
    nlohmann::ordered_json c = {{"id", first.id}, {"precision", first.precision}};
    text += "\n" + first.id + " (" + first.precision + ")";
    if (first.counters.empty()) {
      const std::string why = first.counters_unavailable.empty() ? first.message : first.counters_unavailable;
      c["unavailable"] = why.empty() ? std::string(to_string(first.outcome)) : why;
      text += ": not modelled: " + c["unavailable"].get<std::string>() + "\n";
    } else {
      text += ": " + counters_line(first.counters) + "\n";
      c["counters"] = counters_json(first.counters);
      c["hardware"] = candidate_models(first, runs, asked, flops, bytes, text);
    }
    out["candidates"].push_back(std::move(c));
  }
  if (options.json)
    std::printf("%s\n", out.dump(2).c_str());
  else
    std::printf("%s", text.c_str());
  return 0;
}

}  // namespace

Work add_model_command(CLI::App& command, CommonOptions& common) {
  auto options = std::make_shared<ModelOptions>();
  add_workload_options(command, options->choice);
  command.add_option("--hardware", options->hardware, "GPU keys to model on, comma-separated")
      ->capture_default_str();
  command.add_option("--candidates", options->candidates, "Candidate ids, comma-separated (default: all)");
  command.add_option("--blocks", options->blocks, "Blocks of each launch to run and count")
      ->capture_default_str()
      ->check(number_in(1, 1 << 20, "a whole number of blocks"));
  command.add_option("--timeout", options->timeout_s, "Watchdog per candidate, seconds (default: the device's)")
      ->check(number_in(1, 86400, "a number of seconds"));
  command.add_flag("--json", options->json, "Print JSON instead of text");
  add_suites_option(command, common);
  return [options, &common] { return model_command(*options, common); };
}

}  // namespace kg::cli
