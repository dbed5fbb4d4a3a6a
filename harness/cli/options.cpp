// The options several subcommands share, and the checks of numeric values
// (command.hpp).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "command.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg::cli {

void add_workload_options(CLI::App& command, WorkloadChoice& choice) {
  command.add_option("workload", choice.workload, "Workload id (see `kernelgate list`)")->required();
  command.add_option("--preset", choice.preset, "Axes preset, e.g. ci (default: the defaults, KernelBench's sizes)");
  command.add_option("--axes", choice.axes, "Axis overrides: name=value,name=value");
}

void add_suites_option(CLI::App& command, CommonOptions& common) {
  command.add_option("--suites", common.suites_dir, "folder of the suite files (default: ./suites)");
}

std::filesystem::path suites_dir_of(const CommonOptions& common) { return resolve_suites_dir(common.suites_dir); }

void add_baselines_option(CLI::App& command, std::filesystem::path& dir, const std::string& description) {
  dir = default_baselines_dir();
  command.add_option("--baselines", dir, description)->capture_default_str();
}

void note_renamed_axes(const Suite& suite, const Axes& overrides) {
  for (const std::string& note : renamed_axis_notes(suite, overrides)) std::fprintf(stderr, "%s\n", note.c_str());
}

Axes resolve_workload_axes(const Suite& suite, const WorkloadChoice& choice) {
  const Axes overrides = parse_axes_list(choice.axes);
  note_renamed_axes(suite, overrides);
  return suite.resolve_axes(choice.preset, overrides);
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

CLI::Validator number_in(double min, double max, const std::string& what, OptionErrors* deferred,
                         const std::string& option) {
  auto format = [](double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", value);
    return std::string(buffer);
  };
  const std::string range = what + " from " + format(min) + " to " + format(max);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (!text.empty() && *end == '\0' && std::isfinite(value) && value >= min && value <= max) return "";
        const std::string why = "must be " + range + ", not '" + text + "'";
        if (!deferred) return why;
        deferred->push_back(option + ": " + why);
        text = format(min);
        return "";
      },
      range);
}

void add_seed_option(CLI::App& command, std::uint64_t& seed, const std::string& description,
                     OptionErrors* deferred) {
  command
      .add_option_function<std::string>(
          "--seed",
          [&seed, deferred](const std::string& text) {
            constexpr std::uint64_t kMax = ~std::uint64_t{0};
            std::uint64_t value = 0;
            bool valid = !text.empty() && text.size() <= 20;
            for (char c : text) {
              if (!valid || c < '0' || c > '9' || value > (kMax - std::uint64_t(c - '0')) / 10) {
                valid = false;
                break;
              }
              value = value * 10 + std::uint64_t(c - '0');
            }
            if (valid) {
              seed = value;
              return;
            }
            const std::string why = "must be a whole number from 0 to 18446744073709551615, not '" + text + "'";
            if (!deferred) throw CLI::ValidationError("--seed", why);
            deferred->push_back("--seed: " + why);
          },
          description)
      ->type_name("UINT");
}
}  // namespace kg::cli
