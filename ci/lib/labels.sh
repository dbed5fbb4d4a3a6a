# shellcheck shell=bash
# ci/lib/labels.sh: the GPU labels of the GPU jobs, sourced. They are the test
# presets of CMakePresets.json other than cpu and gpu, one per GPU of the
# hardware table (tests/device/hardware_test.cpp keeps the two equal).
#
#   gpu_labels              the labels, one per line
#   require_gpu_label LABEL exits 2 naming the labels unless LABEL is one

gpu_labels() {
  python3 - "$(dirname "${BASH_SOURCE[0]}")/../../CMakePresets.json" <<'PY'
import json, sys
for preset in json.load(open(sys.argv[1]))["testPresets"]:
    if preset["name"] not in ("cpu", "gpu"):
        print(preset["name"])
PY
}

require_gpu_label() {
  local known
  known=$(gpu_labels)
  if ! grep -qx -- "$1" <<<"$known"; then
    echo "unknown GPU label '$1' (one of: $(paste -sd' ' <<<"$known"))" >&2
    exit 2
  fi
}
