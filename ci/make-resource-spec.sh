#!/usr/bin/env bash
# Writes a CTest resource spec with one `gpus` slot per GPU this runner may
# use (CUDA_VISIBLE_DEVICES when set, else every GPU nvidia-smi lists), so
# tests with RESOURCE_GROUPS gpus:1 each get a GPU of their own.
set -euo pipefail
out=${1:?usage: ci/make-resource-spec.sh OUT.json}
# A runner limited to some GPUs with CUDA_VISIBLE_DEVICES sees them as CUDA
# ordinals 0..n-1: count those, not every GPU of the host.
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
  IFS=',' read -r -a visible <<< "$CUDA_VISIBLE_DEVICES"
  count=${#visible[@]}
else
  count=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
fi
if [ "${count:-0}" -lt 1 ]; then
  # With no slot CTest would only say "Insufficient resources"; with one, the
  # GPU tests run and say themselves that there is no GPU (a failure under
  # KERNELGATE_REQUIRE_GPU=1, a skip otherwise).
  echo "make-resource-spec: nvidia-smi lists no GPU; writing one slot (GPU 0) so the tests report it" >&2
  count=1
fi
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
