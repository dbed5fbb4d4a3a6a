// `kernelgate publish --reports DIR --baselines DIR [--dry-run] [--force]`:
// merges the measured records of the reports into the baseline files
// (docs/baselines.md). All or nothing: on any error the diff of what would
// have changed is printed, nothing is written, and the exit code is 2.
#include <cstdio>
#include <memory>

#include "command.hpp"
#include "kernelgate/detail/baseline.hpp"
#include "kernelgate/detail/publish.hpp"
#include "kernelgate/error.hpp"

namespace kg::cli {
namespace {

int publish_command(PublishOptions options, const CommonOptions& common) {
  options.suites = load_suites(suites_dir_of(common));
  const PublishResult result = publish_reports(options);
  const bool writes = !options.dry_run && result.errors.empty();
  int changed = 0;
  for (const auto& file : result.files) {
    std::printf("%s%s\n", file.file.string().c_str(),
                file.created ? " (new)" : file.changed ? "" : " (unchanged)");
    for (const auto& line : file.diff) std::printf("  %s\n", line.c_str());
    changed += file.changed;
  }
  for (const auto& line : result.refused) std::printf("refused: %s\n", line.c_str());
  for (const auto& error : result.errors) std::fprintf(stderr, "kernelgate: error: %s\n", error.c_str());
  if (!result.errors.empty()) {
    std::printf("not published: %d baseline file(s) would change; nothing written\n", changed);
    return 2;
  }
  std::printf("%s: %d baseline file(s) %s\n", writes ? "published" : "dry run", changed,
              writes ? "changed" : "would change; nothing written");
  return 0;
}

}  // namespace

Work add_publish_command(CLI::App& publish, CommonOptions& common) {
  auto options = std::make_shared<PublishOptions>();
  publish.add_option("--reports", options->reports_dir, "folder of <workload>.<hardware>.json reports")
      ->required();
  add_baselines_option(publish, options->baselines_dir, "folder of <workload>/<hardware>.json");
  add_suites_option(publish, common);
  publish.add_flag("--dry-run,-n", options->dry_run, "print what would change, write nothing");
  publish.add_flag("--force", options->force,
                   "let an older record replace a newer one (refused and listed otherwise)");
  publish.add_option("--by", options->by,
                     "who publishes, for the history (default: $KERNELGATE_PUBLISHER, $GITHUB_ACTOR, $USER)");
  return [options, &common] { return publish_command(*options, common); };
}

}  // namespace kg::cli
