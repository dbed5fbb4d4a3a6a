#!/usr/bin/env bash
# What the GPU jobs (ci/gate-gpu.sh, ci/publish-baselines.sh) do before their
# tests: ci/prepare-gpu.sh LABEL (a GPU label: h100, b200, ...; ci/lib/labels.sh)
# Checks the label, installs the dependencies, builds the gpu preset and
# writes the CTest resource spec (one resource per GPU,
# ci/make-resource-spec.sh) to build/gpu/resource-spec.json.
set -euo pipefail
cd "$(dirname "$0")/.."
label=${1:?usage: ci/prepare-gpu.sh LABEL}
# shellcheck source=ci/lib/labels.sh
source ci/lib/labels.sh
require_gpu_label "$label"

ci/install-deps.sh
cmake --preset gpu
cmake --build --preset gpu
ci/make-resource-spec.sh build/gpu/resource-spec.json
