#!/usr/bin/env bash
# The GPU job of the gate: ci/gate-gpu.sh h100|h200
# Builds the gpu preset and runs the workloads of that GPU class at full size.
# A runner without a GPU of that class fails (KERNELGATE_REQUIRE_GPU=1) instead
# of skipping. With several GPUs, CTest hands each test its own one through the
# resource spec written by ci/make-resource-spec.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
label=${1:?usage: ci/gate-gpu.sh h100|h200}
case "$label" in h100|h200) ;; *) echo "unknown GPU label '$label' (h100 or h200)" >&2; exit 2 ;; esac

ci/install-deps.sh
cmake --preset gpu
cmake --build --preset gpu

spec=build/gpu/resource-spec.json
ci/make-resource-spec.sh "$spec"
export KERNELGATE_REQUIRE_GPU=1
ctest --preset "$label" --resource-spec-file "$spec" --output-junit "$PWD/build/gpu/reports/ctest.junit.xml"
