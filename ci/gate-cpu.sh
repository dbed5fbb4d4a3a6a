#!/usr/bin/env bash
# The CPU job of the gate: every workload in interpret mode, plus the unit tests.
set -euo pipefail
cd "$(dirname "$0")/.."
ci/install-deps.sh
cmake --workflow --preset cpu
