#!/usr/bin/env bash
# ci/device-check.sh OUTDIR [--deps DIR] [--budget SECONDS]: the whole GPU
# check on a fresh machine with the CUDA toolkit and cuDNN
# (docs/gpu-runner.md). It builds the gpu preset, runs first the GPU tests no
# GPU has run yet, then every `gpu`-labelled test at full size (the workloads
# and the GPU versions of the interpret-mode tests), optionally times the
# KernelBench modules in PyTorch eager and torch.compile, and leaves in OUTDIR:
#   summary.txt            one line per step (name, result, seconds), appended
#                          as each step ends, so a run cut short still has one
#   build.log              the configure and the build, with ptxas
#                          register/spill lines (-Xptxas -v)
#   first-tests.log        the GPU tests added since the last GPU run, run first
#                          (their verdict heads the summary)
#   first-run/             the reports of the first ci-shape run among them
#   ctest.log, ctest.junit.xml
#   workloads.log          on a GPU of neither class, the workloads run directly
#   reports/               <workload>.<hardware>.{json,junit.xml,md} of `kernelgate run`
#   torch_baselines.json   when torch is present
#   summary.md             every workload's summary in one file
#   device-check.log       all of the above as it happened
# and prints a short table last.
#   --deps DIR        the Debian packages that ci/device-deps.sh downloaded, for
#                     a machine without the build's development packages (or a
#                     network): unpacked into build/device-deps-prefix, and the
#                     gpu preset is configured against that prefix
#   --budget SECONDS  the whole check's time, 540 by default so that it ends
#                     inside 10 minutes: each step gets at most what is left,
#                     and the steps it leaves no time for are reported as not run
set -uo pipefail

usage() {
  echo "usage: ci/device-check.sh OUTDIR [--deps DIR] [--budget SECONDS]" >&2
  exit 2
}
outdir_arg="" deps_arg="" budget=540
while [ $# -gt 0 ]; do
  case "$1" in
    --deps) [ $# -ge 2 ] || usage; deps_arg=$2; shift 2 ;;
    --budget) [ $# -ge 2 ] || usage; budget=$2; shift 2 ;;
    -*) usage ;;
    *) [ -z "$outdir_arg" ] || usage; outdir_arg=$1; shift ;;
  esac
done
[ -n "$outdir_arg" ] || usage
if ! [[ $budget =~ ^[1-9][0-9]*$ ]]; then
  echo "device-check: --budget takes a whole number of seconds, not '$budget'" >&2
  exit 2
fi
if [ -n "$deps_arg" ]; then
  deps_dir=$(cd "$deps_arg" 2> /dev/null && pwd) || { echo "device-check: no folder '$deps_arg'" >&2; exit 2; }
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
if ! mkdir -p "$outdir_arg" || [ ! -w "$outdir_arg" ]; then
  echo "device-check: cannot write to OUTDIR '$outdir_arg'" >&2
  exit 2
fi
outdir=$(cd "$outdir_arg" && pwd)
cd "$repo" || exit 2
exec > >(tee "$outdir/device-check.log") 2>&1

# shellcheck source=lib/steps.sh disable=SC1091
source "$repo/ci/lib/steps.sh"
# shellcheck source=lib/deps.sh disable=SC1091
source "$repo/ci/lib/deps.sh"
steps_init "$outdir/summary.txt" "$budget"
started=$(steps_now_ms)

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

# With --deps, the packages are unpacked outside OUTDIR, where the build's
# cache can keep pointing at them between runs.
deps_configure_args=()
if [ -n "$deps_arg" ]; then
  deps_prefix=$repo/build/device-deps-prefix
  export -f deps_unpack deps_manifest deps_compare_release deps_release
  step deps deps_unpack "$deps_dir" "$deps_prefix"
  cp "$deps_dir/packages.txt" "$outdir/deps-packages.txt" 2> /dev/null
  deps_use "$deps_prefix"
fi
step configure cmake --preset gpu "${deps_configure_args[@]}" > "$outdir/build.log" 2>&1
build_ok=$?
if [ $build_ok -eq 0 ]; then
  step build cmake --build --preset gpu -j "$(nproc)" >> "$outdir/build.log" 2>&1
  build_ok=$?
else
  step_not_run build "the configure failed"
fi
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
# two wgmma shapes chained on one accumulator with a fence between, the
# cuda device's own fill, hash, scan and gather kernels that every GPU
# verdict rests on (until now run only in interpret mode), then the run's
# first contact: the GPU described by a parent that keeps no context (compute
# mode, CUPTI version), and one workload at the small ci shapes, so the timed
# region (the held stream, the clock readings and their reasons, the
# busy-after wait) meets the hardware in seconds.
first_tests='GpuInterpretKernels.TensorCoresComputeAsTheHopperModel:GpuInterpretKernels.WgmmaShapesChainedWithAFence'
first_tests_described="tensor-core model, wgmma shapes chained, device memory kernels, a first ci-shape run"
# run_first_tests BUILD_DIR FILTER OUTDIR (a step: exported to its shell)
run_first_tests() {
  local status=0 no_baselines
  "$1/tests/interpret/interpret_kernels_gpu_test" --gtest_filter="$2" || status=1
  "$1/tests/device/device_memory_kernels_gpu_test" || status=1
  "$1/bin/kernelgate" device --device cuda || status=1
  no_baselines=$(mktemp -d)
  "$1/bin/kernelgate" run --workload l1_086_conv_depthwise_separable_2d --device cuda --preset ci \
    --baselines "$no_baselines" --allow-empty-baselines --report-dir "$3/first-run" || status=1
  rm -rf "$no_baselines"
  return "$status"
}
export -f run_first_tests
if [ $build_ok -eq 0 ]; then
  step first_tests run_first_tests "$build_dir" "$first_tests" "$outdir" > "$outdir/first-tests.log" 2>&1
  tail -15 "$outdir/first-tests.log"
else
  step_not_run first_tests "the build failed"
fi
first_verdict=$(steps_last_result)
case "$first_verdict" in
  ok) first_verdict="passed" ;;
  FAILED*) first_verdict="FAILED (see first-tests.log)" ;;
esac

if [ $build_ok -eq 0 ]; then
  rm -rf "$report_dir"
  # ctest -L gpu: the workloads at full size on this GPU and the
  # interpret-mode test kernels on the GPU. The workload tests of the other
  # GPU class are left out: under KERNELGATE_REQUIRE_GPU=1 they would fail
  # on this GPU by design. Without a usable GPU nothing is left out, so
  # every GPU test fails and says why.
  gpu_label=$("$build_dir/bin/kernelgate" device --device cuda --label 2> /dev/null || true)
  # shellcheck source=lib/labels.sh disable=SC1091
  source "$repo/ci/lib/labels.sh"
  other_class='^$'
  if [ -n "$gpu_label" ]; then
    others=$(gpu_labels | grep -vx -- "$gpu_label" | paste -sd'|')
    other_class="\\.($others)\$"
  fi
  echo "GPU class: ${gpu_label:-none}"
  step ctest ctest --preset gpu -E "$other_class" --resource-spec-file "$resource_spec" --timeout 420 \
    --output-junit "$outdir/ctest.junit.xml" > "$outdir/ctest.log" 2>&1
  tail -25 "$outdir/ctest.log"
  if [ "$gpu_label" = gpu ]; then
    # A GPU the hardware table does not know: no workload test is for its
    # class, so the workloads run directly, with the same reports.
    echo "this GPU is none of the hardware table's: running the workloads directly"
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
  echo "the build did not finish: tests not run (see build.log)"
  step_not_run ctest "the build failed"
fi

if command -v python3 > /dev/null && python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2> /dev/null; then
  # torch.compile takes the longest: the script's own budget ends it a minute
  # early, the timeout 10 s early, which leaves the summary its time.
  remaining=$(steps_left)
  if [ "$remaining" -gt 60 ]; then
    step torch_baselines timeout $((remaining - 10)) python3 ci/time_torch_baselines.py \
      --reports "$outdir/reports" --out "$outdir/torch_baselines.json" --budget-s $((remaining - 60))
  elif [ "$remaining" -gt 0 ]; then
    step_skipped torch_baselines "$remaining s left of the budget"
  else
    step_not_run torch_baselines budget
  fi
else
  step_skipped torch_baselines "no CUDA-enabled torch"
fi

# write_summary_md KERNELGATE REPORTS HEADLINE OUT (a step): the verdict of
# the new GPU tests, then every workload's Markdown summary.
write_summary_md() {
  {
    echo "$3"
    echo
    "$1" summarize "$2" 2> /dev/null
  } > "$4"
  # Reports that summarize cannot read leave the headline alone, as before;
  # only a file that could not be written fails the step.
  [ -s "$4" ]
}
export -f write_summary_md
kernelgate=$build_dir/bin/kernelgate
if [ -x "$kernelgate" ] && [ -d "$outdir/reports" ]; then
  step summary_md write_summary_md "$kernelgate" "$outdir/reports" \
    "New GPU tests ($first_tests_described): $first_verdict" "$outdir/summary.md"
fi
steps_finish

echo
echo "== device check: $((($(steps_now_ms) - started) / 1000)) s of the $budget s budget"
echo "new GPU tests ($first_tests_described): $first_verdict"
steps_table
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
steps_all_ok
