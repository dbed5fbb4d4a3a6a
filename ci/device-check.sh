#!/usr/bin/env bash
# ci/device-check.sh OUTDIR: the whole GPU check on a fresh machine with the
# CUDA toolkit and cuDNN (docs/gpu-runner.md). It builds the gpu preset, runs
# every `gpu`-labelled test at full size (the workloads and the GPU versions of
# the interpret-mode tests), optionally times the KernelBench modules in
# PyTorch eager and torch.compile, and leaves in OUTDIR:
#   build.log              the build, with ptxas register/spill lines (-Xptxas -v)
#   first-tests.log        the GPU tests added since the last GPU run, run first
#                          (their verdict heads the summary)
#   ctest.log, ctest.junit.xml
#   workloads.log          on a GPU of neither class, the workloads run directly
#   reports/               <workload>.<hardware>.{json,junit.xml,md} of `kernelgate run`
#   torch_baselines.json   when torch is present
#   summary.md             every workload's summary in one file
#   device-check.log       all of the above as it happened
# and prints a short table last. Budget: under 10 minutes on one H200.
set -uo pipefail

if [ $# -ne 1 ]; then
  echo "usage: ci/device-check.sh OUTDIR" >&2
  exit 2
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
if ! mkdir -p "$1" || [ ! -w "$1" ]; then
  echo "device-check: cannot write to OUTDIR '$1'" >&2
  exit 2
fi
outdir=$(cd "$1" && pwd)
cd "$repo" || exit 2
exec > >(tee "$outdir/device-check.log") 2>&1

started=$(date +%s)
declare -a step_names=() step_results=() step_seconds=()
# step NAME COMMAND...: runs it, records pass/fail and duration, never aborts the script.
step() {
  local name=$1
  shift
  local begin
  begin=$(date +%s)
  echo
  echo "== $name: $*"
  "$@"
  local status=$?
  step_names+=("$name")
  step_results+=("$([ $status -eq 0 ] && echo ok || echo "FAILED ($status)")")
  step_seconds+=("$(($(date +%s) - begin))")
  return $status
}

if [ -z "${CUDACXX:-}" ] && ! command -v nvcc > /dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
export KERNELGATE_REQUIRE_GPU=1  # a GPU check without a GPU must fail, not skip
build_dir=$repo/build/gpu
report_dir=$build_dir/reports

echo "== machine"
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
"${CUDACXX:-nvcc}" --version | tail -2
echo "cores: $(nproc)"

# One GPU slot per visible GPU (at least one, so a missing GPU is reported by
# the tests themselves), written by the same script the gate uses.
resource_spec=$outdir/resource-spec.json
ci/make-resource-spec.sh "$resource_spec"

build() {
  cmake --preset gpu && cmake --build --preset gpu -j "$(nproc)"
}
step build build > "$outdir/build.log" 2>&1
build_ok=$?
tail -5 "$outdir/build.log"
# Our kernels must not spill: ptxas prints a "spill stores" line per kernel.
spills=$(grep -E '[1-9][0-9]* bytes spill (stores|loads)' "$outdir/build.log" | sort -u || true)
if [ -n "$spills" ]; then
  echo "register spills in the build (ptxas):"
  echo "$spills"
fi
warnings=$(grep -E 'warning' "$outdir/build.log" | grep -v '^ptxas info' | sort -u || true)
[ -n "$warnings" ] && { echo "compiler warnings:"; echo "$warnings"; }

# The GPU tests no GPU has run yet go first, so that a run cut short still
# answers them: the tensor-core model of interpret mode against the hardware,
# two wgmma shapes chained on one accumulator with a fence between, and the
# cuda device's own fill, hash, scan and gather kernels that every GPU
# verdict rests on (until now run only in interpret mode).
first_tests='GpuInterpretKernels.TensorCoresComputeAsTheHopperModel:GpuInterpretKernels.WgmmaShapesChainedWithAFence'
first_tests_described="tensor-core model, wgmma shapes chained, device memory kernels"
run_first_tests() {
  local status=0
  "$build_dir/tests/interpret/interpret_kernels_gpu_test" --gtest_filter="$first_tests" || status=1
  "$build_dir/tests/device/device_memory_kernels_gpu_test" || status=1
  return $status
}
first_verdict="not run (the build failed)"
if [ $build_ok -eq 0 ]; then
  step first_tests run_first_tests > "$outdir/first-tests.log" 2>&1
  first_status=$?
  tail -15 "$outdir/first-tests.log"
  if [ $first_status -eq 0 ]; then
    first_verdict="passed"
  else
    first_verdict="FAILED (see first-tests.log)"
  fi
fi

if [ $build_ok -eq 0 ]; then
  rm -rf "$report_dir"
  # ctest -L gpu: the workloads at full size on this GPU and the
  # interpret-mode test kernels on the GPU. The workload tests of the other
  # GPU class are left out: under KERNELGATE_REQUIRE_GPU=1 they would fail
  # on this GPU by design. Without a usable GPU nothing is left out, so
  # every GPU test fails and says why.
  gpu_label=$("$build_dir/bin/kernelgate" device --device cuda --label 2> /dev/null || true)
  case "$gpu_label" in
    h100) other_class='\.h200$' ;;
    h200) other_class='\.h100$' ;;
    gpu)  other_class='\.(h100|h200)$' ;;
    *)    other_class='^$' ;;
  esac
  echo "GPU class: ${gpu_label:-none}"
  step ctest ctest --preset gpu -E "$other_class" --resource-spec-file "$resource_spec" --timeout 420 \
    --output-junit "$outdir/ctest.junit.xml" > "$outdir/ctest.log" 2>&1
  tail -25 "$outdir/ctest.log"
  if [ "$gpu_label" = gpu ]; then
    # Neither an H100 nor an H200 (an NVL board, another GPU): no workload test
    # is for this class, so the workloads run directly, with the same reports.
    echo "this GPU is neither an H100 nor an H200: running the workloads directly"
    for suite_file in suites/*/*.json; do
      workload=$(basename "$suite_file" .json)
      step "$workload" "$build_dir/bin/kernelgate" run --workload "$workload" --device cuda \
        --baselines baselines --report-dir "$report_dir" >> "$outdir/workloads.log" 2>&1
    done
    tail -40 "$outdir/workloads.log"
  fi
  mkdir -p "$outdir/reports"
  [ -d "$report_dir" ] && cp -r "$report_dir/." "$outdir/reports/"
else
  echo "build failed: tests not run (see build.log)"
fi

if command -v python3 > /dev/null && python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2> /dev/null; then
  # The budget keeps the whole check inside 10 minutes; what it cuts is logged.
  remaining=$((540 - ($(date +%s) - started)))
  if [ $remaining -gt 60 ]; then
    step torch_baselines timeout $((remaining - 10)) python3 ci/time_torch_baselines.py \
      --reports "$outdir/reports" --out "$outdir/torch_baselines.json" --budget-s $((remaining - 60))
  else
    echo "== torch_baselines: skipped, $remaining s left of the 10-minute budget"
  fi
else
  echo "== torch_baselines: skipped (no python3 with a CUDA-enabled torch)"
fi

kernelgate=$build_dir/bin/kernelgate
if [ -x "$kernelgate" ] && [ -d "$outdir/reports" ]; then
  {
    echo "New GPU tests ($first_tests_described): $first_verdict"
    echo
    "$kernelgate" summarize "$outdir/reports" 2> /dev/null
  } > "$outdir/summary.md" || true
fi

echo
echo "== device check: $(($(date +%s) - started)) s"
echo "new GPU tests ($first_tests_described): $first_verdict"
for i in "${!step_names[@]}"; do
  printf '  %-16s %-12s %5ss\n' "${step_names[$i]}" "${step_results[$i]}" "${step_seconds[$i]}"
done
# The short table: every implementation of every workload report, from the JSON.
if command -v python3 > /dev/null; then
  python3 - "$outdir/reports" << 'PY'
import json, pathlib, sys
rows = []
for path in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    try:
        report = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        continue
    for c in report.get("candidates", []):
        latency = c.get("latency") or {}
        gate = c.get("gate") or {}
        record = c.get("record") or {}
        ratio = gate.get("ratio_to_eager", record.get("ratio_to_eager"))
        rows.append((report.get("workload", {}).get("id", path.stem), report.get("hardware", ""), c.get("id", ""),
                     c.get("precision", ""), c.get("outcome", ""), latency.get("mean_ms"), ratio))
if rows:
    print(f"\n{'workload':38s} {'hardware':9s} {'implementation':24s} {'prec':5s} {'outcome':18s} {'mean ms':>9s} {'/eager':>7s}")
    for w, h, i, p, o, m, r in rows:
        print(f"{w:38s} {h:9s} {i:24s} {p:5s} {o:18s} {'' if m is None else format(m, '9.4f'):>9} "
              f"{'' if r is None else format(r, '7.3f'):>7}")
else:
    print("\nno workload reports were written")
PY
fi
for result in "${step_results[@]}"; do
  [ "$result" = ok ] || exit 1
done
exit 0
