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
export KERNELGATE_REQUIRE_GPU=1
# As many tests at once as the spec has GPUs: each holds one of its own.
gpus=$(grep -o '"id"' build/gpu/resource-spec.json | wc -l)
ctest --preset "$label" --resource-spec-file build/gpu/resource-spec.json -j "$((gpus > 0 ? gpus : 1))" \
  --output-junit "$PWD/build/gpu/reports/ctest.junit.xml"
