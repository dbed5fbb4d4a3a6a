#!/usr/bin/env bash
# ci/model-figures.sh [KERNELGATE]: regenerates docs/kernels/modelled.md, the
# modelled figures the kernel docs cite, from `kernelgate model` of every
# workload at its default (KernelBench) axes. A candidate that does not finish
# within the watchdog is listed as not modelled. Takes minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
kernelgate=$(ci/cpu-kernelgate.sh "${1:-}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for suite in suites/*/*.json; do
  workload=$(basename "$suite" .json)
  echo "== $workload" >&2
  start=$SECONDS
  "$kernelgate" model "$workload" --hardware h100-sxm,h100-pcie,h200 --timeout 60 --json >"$work/$workload.json"
  echo $((SECONDS - start)) >"$work/$workload.seconds"
done
python3 ci/render_model_figures.py "$(git rev-parse --short HEAD)" "$work"/*.json >docs/kernels/modelled.md
echo "wrote docs/kernels/modelled.md" >&2
