// `kernelgate report --html DIR`: the static leaderboard pages.
#include <cstdio>
#include <memory>

#include "command.hpp"
#include "kernelgate/detail/html_report.hpp"
#include "kernelgate/detail/suite.hpp"

namespace kg::cli {
namespace {

struct ReportOptions {
  std::string html_dir;
  std::string reports_dir;
  std::filesystem::path baselines_dir;
};

}  // namespace

Work add_report_command(CLI::App& report, CommonOptions& common) {
  auto options = std::make_shared<ReportOptions>();
  report.add_option("--html", options->html_dir, "folder for the pages (created if missing)")->required();
  report.add_option("--reports", options->reports_dir, "the --report-dir of `kernelgate run` (optional)");
  add_baselines_option(report, options->baselines_dir, "baselines folder");
  add_suites_option(report, common);
  return [options, &common] {
    HtmlReportOptions html;
    html.out_dir = options->html_dir;
    html.reports_dir = options->reports_dir;
    html.baselines_dir = options->baselines_dir;
    html.suites_dir = suites_dir_of(common);
    for (const auto& page : write_html_report(html)) std::printf("%s\n", page.string().c_str());
    return 0;
  };
}

}  // namespace kg::cli
