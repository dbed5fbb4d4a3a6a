// `kernelgate publish --reports DIR --baselines DIR [--dry-run]`: merges the
// measured records of the reports into the baseline files (docs/baselines.md).
#include <cstdio>
#include <memory>

#include "command.hpp"
#include "kernelgate/baseline.hpp"

namespace kg::cli {
namespace {

int publish_command(const PublishOptions& options) {
  const auto published = publish_reports(options);
  int changed = 0;
  for (const auto& file : published) {
    std::printf("%s%s\n", file.file.string().c_str(),
                file.created ? " (new)" : file.changed ? "" : " (unchanged)");
    for (const auto& line : file.diff) std::printf("  %s\n", line.c_str());
    changed += file.changed;
  }
  std::printf("%s: %d baseline file(s) %s\n", options.dry_run ? "dry run" : "published", changed,
              options.dry_run ? "would change; nothing written" : "changed");
  return 0;
}

const CommandRegistrar publish_registrar{{
    .name = "publish",
    .add =
        [](CLI::App& app, CommonOptions&, int& exit_code) {
          auto options = std::make_shared<PublishOptions>();
          options->baselines_dir = "baselines";
          CLI::App* publish = app.add_subcommand(
              "publish", "Merge the measured records of reports into the baseline files, keeping history");
          publish->add_option("--reports", options->reports_dir, "folder of <workload>.<hardware>.json reports")
              ->required();
          publish->add_option("--baselines", options->baselines_dir, "folder of <workload>/<hardware>.json")
              ->capture_default_str();
          publish->add_flag("--dry-run,-n", options->dry_run, "print what would change, write nothing");
          publish->add_option("--by", options->by,
                              "who publishes, for the history (default: $KERNELGATE_PUBLISHER, $GITHUB_ACTOR, $USER)");
          publish->callback([options, &exit_code] { exit_code = publish_command(*options); });
        },
}};

}  // namespace
}  // namespace kg::cli
