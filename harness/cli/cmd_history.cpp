// `kernelgate history WORKLOAD [--hardware KEY]`: every implementation's
// published records over time, from the baseline files, with the change
// points in them (history.hpp). Exit 0 whatever it finds: it informs; the
// gate decides.
#include <cmath>
#include <cstdio>
#include <memory>

#include "command.hpp"
#include "kernelgate/detail/baseline.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/history.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

struct HistoryOptions {
  std::string workload;
  std::string hardware;
  std::filesystem::path baselines_dir;
  bool json = false;
  std::optional<double> min_change;
  OptionErrors option_errors;
};

// The hardware keys to show: --hardware, or every file of the workload.
std::vector<std::string> history_keys(const fs::path& baselines_dir, const std::string& workload,
                                      const std::string& hardware) {
  check_baselines_dir(baselines_dir, false);
  if (!hardware.empty()) return {hardware};
  std::vector<std::string> keys;
  for (const fs::path& file : workload_baseline_files(baselines_dir, workload)) keys.push_back(file.stem().string());
  if (keys.empty()) throw Error((baselines_dir / workload).string() + ": no baseline files of " + workload);
  return keys;
}

std::string percent(double ratio) {
  char text[32];
  std::snprintf(text, sizeof text, "%+.1f%%", (ratio - 1) * 100);
  return text;
}

void print_history(const fs::path& file, const BaselineFile& baseline,
                   const std::vector<ImplementationHistory>& histories) {
  std::printf("%s on %s: %s\n", baseline.workload.c_str(), baseline.hardware.c_str(), file.string().c_str());
  for (const ImplementationHistory& history : histories) {
    std::size_t changes = 0;
    for (const HistoryPoint& point : history.points) changes += point.change.has_value();
    std::printf("\n%s (%s): %zu record%s, by %s", history.implementation.c_str(),
                std::string(to_string(history.trust)).c_str(), history.points.size(),
                history.points.size() == 1 ? "" : "s", history.statistic.c_str());
    if (history.drift_points > 1)
      std::printf("; %zu change point%s; latest %s against the first of %zu comparable records", changes,
                  changes == 1 ? "" : "s", percent(history.drift).c_str(), history.drift_points);
    std::printf("\n");
    for (const HistoryPoint& point : history.points) {
      const LatencyStats& latency = point.record.latency;
      std::printf("  %-20s %10.4g ms   mean %.4g, std %.4g, n %lld, rev %s", point.record.observed.substr(0, 20).c_str(),
                  point.value_ms, latency.mean_ms, latency.std_ms, static_cast<long long>(latency.n),
                  point.record.git_revision.empty() ? "-" : point.record.git_revision.substr(0, 12).c_str());
      if (point.comparison_restarts) std::printf("   (series restarts: another identity, preset, axes or precision)");
      if (point.change)
        std::printf("   %s change point: %s (p = %.2g)", point.change->ratio > 1 ? "slower:" : "faster:",
                    percent(point.change->ratio).c_str(), point.change->p_value);
      std::printf("\n");
    }
  }
  std::printf("\n");
}

ordered_json history_json(const fs::path& file, const BaselineFile& baseline,
                          const std::vector<ImplementationHistory>& histories) {
  ordered_json implementations = ordered_json::array();
  for (const ImplementationHistory& history : histories) {
    ordered_json points = ordered_json::array();
    for (const HistoryPoint& point : history.points) {
      ordered_json change = nullptr;
      if (point.change) change = {{"ratio", point.change->ratio}, {"p_value", point.change->p_value}};
      points.push_back({{"observed", point.record.observed},
                        {"value_ms", point.value_ms},
                        {"mean_ms", point.record.latency.mean_ms},
                        {"n", point.record.latency.n},
                        {"git_revision", point.record.git_revision},
                        {"comparison_restarts", point.comparison_restarts},
                        {"change_point", change}});
    }
    implementations.push_back({{"implementation", history.implementation},
                               {"trust", std::string(to_string(history.trust))},
                               {"statistic", history.statistic},
                               {"drift", history.drift},
                               {"drift_points", history.drift_points},
                               {"points", points}});
  }
  return {{"workload", baseline.workload},
          {"hardware", baseline.hardware},
          {"file", file.string()},
          {"implementations", implementations}};
}

void history_command(const HistoryOptions& options, const CommonOptions& common) {
  if (!options.option_errors.empty()) throw Error(options.option_errors.front());
  const Suite suite = find_suite(suites_dir_of(common), options.workload);  // an unknown workload is an error
  ChangePointPolicy policy = change_point_policy(suite.gate);
  if (options.min_change) policy.min_relative_change = *options.min_change;
  // Every file is read and checked before anything is printed.
  std::vector<std::pair<fs::path, BaselineFile>> files;
  for (const std::string& key : history_keys(options.baselines_dir, suite.id, options.hardware)) {
    const fs::path file = baseline_path(options.baselines_dir, suite.id, key);  // refuses a key that is none
    std::optional<BaselineFile> baseline = load_stored_baseline(options.baselines_dir, suite.id, key);
    if (!baseline) throw Error(file.string() + ": no baselines of " + suite.id + " on " + key);
    files.emplace_back(file, std::move(*baseline));
  }
  ordered_json all = ordered_json::array();
  for (const auto& [file, baseline] : files) {
    const auto histories = published_history(baseline, policy);
    if (options.json)
      all.push_back(history_json(file, baseline, histories));
    else
      print_history(file, baseline, histories);
  }
  if (options.json) std::printf("%s\n", all.dump(2).c_str());
}

}  // namespace

Work add_history_command(CLI::App& history, CommonOptions& common) {
  auto options = std::make_shared<HistoryOptions>();
  history.add_option("workload", options->workload, "Workload id (see `kernelgate list`)")->required();
  history.add_option("--hardware", options->hardware, "one hardware key (default: every file of the workload)");
  add_baselines_option(history, options->baselines_dir, "baselines folder");
  history.add_flag("--json", options->json, "the histories as JSON");
  history
      .add_option_function<double>(
          "--min-change", [options](double value) { options->min_change = value; },
          "smallest relative change that counts as a change point (default: the suite's latency tolerance)")
      ->check(number_in(0, 10, "a fraction", &options->option_errors, "--min-change"));
  add_suites_option(history, common);
  return [options, &common] {
    history_command(*options, common);
    return 0;
  };
}

}  // namespace kg::cli
