#!/usr/bin/env bash
# What the GPU jobs (ci/gate-gpu.sh, ci/publish-baselines.sh) do before their
# tests: ci/prepare-gpu.sh h100|h200
# Checks the label, installs the dependencies, builds the gpu preset and
# writes the CTest resource spec (one resource per GPU,
# ci/make-resource-spec.sh) to build/gpu/resource-spec.json.
set -euo pipefail
cd "$(dirname "$0")/.."
label=${1:?usage: ci/prepare-gpu.sh h100|h200}
case "$label" in h100|h200) ;; *) echo "unknown GPU label '$label' (h100 or h200)" >&2; exit 2 ;; esac

ci/install-deps.sh
cmake --preset gpu
cmake --build --preset gpu
ci/make-resource-spec.sh build/gpu/resource-spec.json
