#!/usr/bin/env bash
# The GPU job of the gate: ci/gate-gpu.sh h100|h200
# Builds the gpu preset and runs the workloads of that GPU class at full size.
# A runner without a GPU of that class fails (KERNELGATE_REQUIRE_GPU=1) instead
# of skipping. With several GPUs, CTest runs one test per GPU at once and hands
# each its own one through the resource spec ci/prepare-gpu.sh writes.
set -euo pipefail
cd "$(dirname "$0")/.."
label=${1:?usage: ci/gate-gpu.sh h100|h200}

ci/prepare-gpu.sh "$label"
ci/ctest-gpus.sh build/gpu/resource-spec.json "$PWD/build/gpu/reports/ctest.junit.xml" --preset "$label"
