#!/usr/bin/env bash
# The main job: the whole suite on the best device present. With a working GPU
# (nvidia-smi answers and nvcc is installed) it builds the gpu preset and runs
# every workload at full size; otherwise it builds the cpu preset and runs every
# workload in interpret mode at the `ci` axes preset. Reports go to REPORT_DIR
# (default build/reports); the exit code is the gate's.
set -euo pipefail
cd "$(dirname "$0")/.."
report_dir=${1:-build/reports}

ci/install-deps.sh

nvcc_path=$(command -v nvcc || true)
[ -z "$nvcc_path" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc_path=/usr/local/cuda/bin/nvcc
if [ -n "$nvcc_path" ] && command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  echo "== GPU found: full-size run on the cuda device"
  CUDACXX="$nvcc_path" cmake --preset gpu
  cmake --build --preset gpu
  run=(build/gpu/bin/kernelgate run --all --device cuda)
else
  echo "== no GPU: interpret mode on the CPU at the ci axes preset"
  cmake --preset cpu
  cmake --build --preset cpu
  run=(build/cpu/bin/kernelgate run --all --device cpu --preset ci --counters)
fi

status=0
"${run[@]}" --baselines baselines --report-dir "$report_dir" || status=$?
"${run[0]}" summarize "$report_dir" > "$report_dir/summary.md" && echo "== summary: $report_dir/summary.md"
exit "$status"
