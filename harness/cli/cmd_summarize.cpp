// `kernelgate summarize REPORT_DIR`: one Markdown summary of every workload's
// report, e.g. for $GITHUB_STEP_SUMMARY.
#include <fstream>
#include <iostream>
#include <memory>

#include "command.hpp"
#include "kernelgate/error.hpp"
#include "kernelgate/detail/report.hpp"

namespace kg::cli {
namespace {

struct SummarizeOptions {
  std::string report_dir;
  std::string output;
};

}  // namespace

Work add_summarize_command(CLI::App& summarize, CommonOptions&) {
  auto options = std::make_shared<SummarizeOptions>();
  summarize.add_option("report_dir", options->report_dir, "the --report-dir of `kernelgate run`")
      ->required();
  summarize.add_option("--output,-o", options->output,
                       "append to this file (e.g. $GITHUB_STEP_SUMMARY) instead of printing");
  return [options] {
    const std::string summary = summarize_reports(options->report_dir);
    if (options->output.empty()) {
      std::cout << summary;
    } else {
      std::ofstream out(options->output, std::ios::app);
      if (!(out << summary)) throw Error(options->output + ": cannot be written");
    }
    return 0;
  };
}

}  // namespace kg::cli
