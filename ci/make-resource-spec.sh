#!/usr/bin/env bash
# Writes a CTest resource spec with one `gpus` slot per GPU that nvidia-smi
# lists, so tests with RESOURCE_GROUPS gpus:1 each get a GPU of their own.
set -euo pipefail
out=${1:?usage: ci/make-resource-spec.sh OUT.json}
count=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
mkdir -p "$(dirname "$out")"
{
  printf '{\n  "version": {"major": 1, "minor": 0},\n  "local": [{\n    "gpus": ['
  for ((i = 0; i < count; i++)); do
    [ "$i" -gt 0 ] && printf ', '
    printf '{"id": "%d", "slots": 1}' "$i"
  done
  printf ']\n  }]\n}\n'
} > "$out"
echo "resource spec: $count GPU(s) -> $out"
