#!/usr/bin/env bash
# Prints the Markdown summary of all reports of a build folder (for
# $GITHUB_STEP_SUMMARY): ci/summarize.sh build/cpu|build/gpu
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: ci/summarize.sh BUILD_DIR}
if [ ! -x "$build/bin/kernelgate" ] || [ ! -d "$build/reports" ]; then
  echo "_no reports in $build (the build or the run did not get that far)_"
  exit 0
fi
"$build/bin/kernelgate" summarize "$build/reports"
