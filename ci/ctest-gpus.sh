#!/usr/bin/env bash
# ci/ctest-gpus.sh RESOURCE_SPEC JUNIT CTEST_ARGS...: the GPU tests CTEST_ARGS
# select (a preset or a build and a label), one test per GPU of the resource
# spec at once, each holding one GPU of its own (RESOURCE_GROUPS gpus:1), with
# the JUnit file written to JUNIT. A runner without a GPU of the tests' class
# fails instead of skipping (KERNELGATE_REQUIRE_GPU=1). Used by ci/gate-gpu.sh
# and ci/consumer-gate.sh.
set -euo pipefail
spec=${1:?usage: ci/ctest-gpus.sh RESOURCE_SPEC JUNIT CTEST_ARGS...}
junit=${2:?usage: ci/ctest-gpus.sh RESOURCE_SPEC JUNIT CTEST_ARGS...}
shift 2
gpus=$(grep -o '"id"' "$spec" | wc -l)
KERNELGATE_REQUIRE_GPU=1 ctest "$@" --resource-spec-file "$spec" -j "$((gpus > 0 ? gpus : 1))" --output-junit "$junit"
