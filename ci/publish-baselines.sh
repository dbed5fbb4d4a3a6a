#!/usr/bin/env bash
# Runs the full-size suite on this GPU runner and merges the measured records
# into baselines/: ci/publish-baselines.sh LABEL [SUMMARY.md] (a GPU label: h100, b200, ...)
# (the summary, the pull request's description, defaults to
# build/gpu/publish-summary.md).
# The gate's verdicts do not stop the publish: publishing is how stale records
# are refreshed. A candidate that is incorrect or breaks the contract is never
# published (kernelgate publish only takes passing records).
set -euo pipefail
cd "$(dirname "$0")/.."
label=${1:?usage: ci/publish-baselines.sh LABEL [SUMMARY.md]}
summary=${2:-build/gpu/publish-summary.md}

ci/prepare-gpu.sh "$label"
KERNELGATE_REQUIRE_GPU=1 ctest --preset "$label" --resource-spec-file build/gpu/resource-spec.json || true

build/gpu/bin/kernelgate publish --reports build/gpu/reports --baselines baselines
mkdir -p "$(dirname "$summary")"
build/gpu/bin/kernelgate summarize build/gpu/reports > "$summary"
