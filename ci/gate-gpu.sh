#!/usr/bin/env bash
# The GPU job of the gate: ci/gate-gpu.sh LABEL [I/N] (a GPU label: h100, b200, ...)
# Builds the gpu preset and runs the workloads of that GPU class at full size.
# A runner without a GPU of that class fails (KERNELGATE_REQUIRE_GPU=1) instead
# of skipping. With several GPUs, CTest runs one test per GPU at once and hands
# each its own one through the resource spec ci/prepare-gpu.sh writes.
# With I/N, this runner takes shard I of N of the tests (ci/shard-tests.sh);
# the shards' report folders joined are one run's (docs/ctest.md).
set -euo pipefail
cd "$(dirname "$0")/.."
label=${1:?usage: ci/gate-gpu.sh LABEL [I/N]}
shard=${2:-1/1}

ci/prepare-gpu.sh "$label"
selection=$(ci/shard-tests.sh build/gpu/bin/kernelgate "$label" "$shard")  # a bad shard stops the job
select=()
if [ -n "$selection" ]; then mapfile -t select <<<"$selection"; fi
ci/ctest-gpus.sh build/gpu/resource-spec.json "$PWD/build/gpu/reports/ctest.junit.xml" --preset "$label" \
  "${select[@]}"
