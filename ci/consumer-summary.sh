#!/usr/bin/env bash
# The step summary of kernelgate-gate.yml (docs/consumer.md):
#   ci/consumer-summary.sh PROJECT_DIR SUITES BASELINES [cpu|GPU_LABEL]
# The Markdown summary of the reports ci/consumer-gate.sh left, then what
# `kernelgate publish` would change in the project's baselines folder (a
# preview: nothing is written).
set -euo pipefail
kernelgate=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: ci/consumer-summary.sh PROJECT_DIR SUITES BASELINES [cpu|GPU_LABEL]"
project=${1:?$usage} suites=${2:?$usage} baselines=${3:?$usage} label=${4:-cpu}
layout=$("$kernelgate/ci/consumer-layout.sh" "$label" "$project")
{ read -r _preset; read -r prefix; read -r _build; read -r reports; } <<< "$layout"
cli=$prefix/bin/kernelgate
if [ ! -x "$cli" ] || ! compgen -G "$reports/*.$label*.json" > /dev/null; then
  echo "_no kernelgate reports for $label (the build or the run did not get that far)_"
  exit 0
fi
"$cli" summarize "$reports"
echo
echo "#### What publishing these reports would change in \`$baselines\`"
echo
echo '```'
"$cli" publish --dry-run --reports "$reports" --baselines "$project/$baselines" --suites "$project/$suites" || true
echo '```'
