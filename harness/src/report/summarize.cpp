// `kernelgate summarize`: the Markdown of every report in a folder, joined,
// kept under GitHub's 1 MiB limit on a step summary.
#include "kernelgate/error.hpp"
#include "kernelgate/detail/report.hpp"

namespace kg {

std::string summarize_reports(const std::filesystem::path& report_dir) {
  const auto files = report_files(report_dir);
  if (files.empty()) throw Error(report_dir.string() + ": no kernelgate reports (<workload>.<hardware>.json) in it");
  int passed = 0, failed = 0;
  std::vector<std::string> sections;
  for (const auto& file : files) {
    auto report = load_report(file);
    (report.value("outcome", "") == "passed" ? passed : failed) += 1;
    try {
      sections.push_back(markdown_summary(report));
    } catch (const nlohmann::json::exception& e) {
      throw Error(file.string() + ": does not follow the report schema (" + e.what() + ")");
    }
  }
  std::string summary = "## kernelgate: " + std::to_string(passed) + " passed, " + std::to_string(failed) +
                        " failed (" + std::to_string(files.size()) + " workload reports)\n\n";
  const std::string cut_note = "\n_The rest of the summary was cut to stay under 1 MiB: see the JSON reports._\n";
  for (std::size_t i = 0; i < sections.size(); ++i) {
    if (summary.size() + sections[i].size() + cut_note.size() > kMaxSummaryBytes) {
      summary += cut_note;
      break;
    }
    summary += sections[i];
  }
  return summary;
}

}  // namespace kg
