#!/usr/bin/env bash
# Where a team's gate of one label keeps its things, for ci/consumer-gate.sh
# and ci/consumer-summary.sh, so that the summary reads what the gate wrote:
#   ci/consumer-layout.sh LABEL PROJECT_DIR
# prints four lines: the kernelgate preset of the label (cpu or gpu), that
# build's install prefix, the project's build folder for the label and the
# folder its tests write reports to. An unknown label exits 2.
set -euo pipefail
kernelgate=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: ci/consumer-layout.sh cpu|GPU_LABEL PROJECT_DIR"
label=${1:?$usage} project=${2:?$usage}
# shellcheck source=ci/lib/labels.sh
source "$kernelgate/ci/lib/labels.sh"
if [ "$label" = cpu ]; then
  preset=cpu
else
  require_gpu_label "$label"  # h100, b200, ... (CMakePresets.json)
  preset=gpu
fi
printf '%s\n' "$preset" "$kernelgate/build/prefix-$preset" "$project/build/kernelgate-$label" \
  "$project/build/kernelgate-$label/kernelgate-reports"
