#!/usr/bin/env bash
# check_simulated_gpu.sh CASE KERNELGATE SUITES WORK
# `kernelgate` on the simulated GPU (docs/simulated-gpu.md), end to end: the
# parent describes the card, each candidate's child runs the cuda device's
# own code against the simulated runtime, as scripted through KERNELGATE_SIM_*.
# One CASE per CTest test:
#   locked_clock     the SM clock locked at 1410 MHz (71% of boost): every
#                    sample kept, the reason reported, the run says it is locked
#   throttle         a fifth of the samples at 990 MHz for hardware slowdown:
#                    those discarded and counted, the others kept
#   exclusive_process  the card admits one context at a time: every honest
#                    candidate passes (the parent holds none while they run)
#   exclusive_held   another process holds such a card: one line naming the
#                    mode, no candidate run
#   prohibited       no context at all: one line naming the mode, no candidate run
#   fault            a sticky fault at a candidate's kernel: `crashed`, naming it
#   all_workloads    every workload at the ci shapes: every candidate passes
#                    its checks, cudnn_eager not_supported (no cuDNN)
#   publish          a simulated run's report is never published
#   architectures    on an Ampere and a Blackwell card every direct candidate
#                    passes, and every wgmma one is not_supported, naming
#                    sm_90a and the card's architecture, before it runs
set -euo pipefail
case_name=$1 kernelgate=$2 suites=$3 work=$4

rm -rf "$work"
mkdir -p "$work/baselines"
fail() { echo "FAILED: $*"; exit 1; }

# run_small [extra arguments...]: l1_086 at small axes on the simulated H100,
# its results in $work/results.json; returns kernelgate's exit code.
run_small() {
  local status=0
  "$kernelgate" run --workload l1_086_conv_depthwise_separable_2d --suites "$suites" --device sim:h100-sxm \
    --preset ci --axes batch_size=1,in_channels=4,out_channels=8 --baselines "$work/baselines" \
    --report-dir "$work/reports" --results "$work/results.json" "$@" > "$work/run.log" 2>&1 || status=$?
  return "$status"
}

# check_results PYTHON_CONDITION MESSAGE: the condition over `run` (the
# results' first run) and `latency` (direct_fp32's latency record).
check_results() {
  python3 - "$work/results.json" "$1" "$2" << 'PY' || { cat "$work/run.log"; exit 1; }
import json, sys
run = json.load(open(sys.argv[1]))[0]
latency = next(c for c in run["candidates"] if c["id"] == "direct_fp32").get("latency", {})
if not eval(sys.argv[2]):
    print("FAILED:", sys.argv[3])
    print("environment:", json.dumps(run["environment"]))
    print("latency:", json.dumps(latency))
    sys.exit(1)
PY
}

case "$case_name" in
  locked_clock)
    KERNELGATE_SIM_SM_CLOCK_MHZ=1410 run_small --candidates direct_fp32 --min-samples 12 || fail "the run failed"
    check_results 'latency["n"] >= 12 and latency["throttled_samples"] == 0' \
      "a clock locked at 71% of boost must keep every sample"
    check_results 'set(latency["sm_clock_mhz"]) == {1410} and latency["clock_event_reasons"] == ["applications_clocks_setting"]' \
      "the samples ran at 1410 MHz for a clock setting"
    check_results 'run["environment"].get("sm_clock_locked") is True' "the report's environment says the clock is locked"
    ;;
  throttle)
    KERNELGATE_SIM_THROTTLE=0.2:990 run_small --candidates direct_fp32 --min-samples 20 || fail "the run failed"
    check_results 'latency["throttled_samples"] >= 4 and latency["n"] >= 20' \
      "a fifth of the samples at 990 MHz must be discarded and counted"
    check_results 'set(latency["sm_clock_mhz"]) == {1980} and "hw_slowdown" in latency["clock_event_reasons"]' \
      "the samples kept ran at boost; the throttling reason is reported"
    ;;
  exclusive_process)
    KERNELGATE_SIM_COMPUTE_MODE=exclusive_process run_small || fail "a candidate failed in EXCLUSIVE_PROCESS mode"
    check_results 'sorted(c["id"] for c in run["candidates"] if c["outcome"] == "passed") == ["direct_fp32", "fused_fp32", "fused_tf32"]' \
      "every honest candidate passes in EXCLUSIVE_PROCESS mode"
    check_results 'run["environment"]["compute_mode"] == "EXCLUSIVE_PROCESS"' "the environment names the mode"
    ;;
  exclusive_held)
    # Another process holds the card: one line naming the mode, no candidate run.
    status=0
    lock=${TMPDIR:-/tmp}/kernelgate-simulated-h100-sxm.lock
    KERNELGATE_SIM_COMPUTE_MODE=exclusive_process flock "$lock" bash -c "$(declare -f run_small); work='$work' \
      kernelgate='$kernelgate' suites='$suites' run_small" || status=$?
    [ "$status" -eq 2 ] || { cat "$work/run.log"; fail "expected exit code 2, got $status"; }
    grep -q "sim:h100-sxm is in EXCLUSIVE_PROCESS compute mode and another process holds it" "$work/run.log" ||
      { cat "$work/run.log"; fail "no line names the mode"; }
    if grep -q "direct_fp32" "$work/run.log"; then cat "$work/run.log"; fail "a candidate ran"; fi
    ;;
  prohibited)
    status=0
    KERNELGATE_SIM_COMPUTE_MODE=prohibited run_small || status=$?
    [ "$status" -eq 2 ] || { cat "$work/run.log"; fail "expected exit code 2, got $status"; }
    grep -q "sim:h100-sxm is in PROHIBITED compute mode" "$work/run.log" || { cat "$work/run.log"; fail "no line names the mode"; }
    if grep -q "direct_fp32" "$work/run.log"; then cat "$work/run.log"; fail "a candidate ran"; fi
    ;;
  fault)
    status=0
    KERNELGATE_SIM_FAULT_AT_LAUNCH=6 run_small --candidates direct_fp32 || status=$?
    [ "$status" -eq 1 ] || { cat "$work/run.log"; fail "expected exit code 1, got $status"; }
    check_results 'next(c for c in run["candidates"] if c["id"] == "direct_fp32")["outcome"] == "crashed"' \
      "a sticky fault crashes the candidate"
    grep -q "cudaErrorIllegalAddress" "$work/run.log" || { cat "$work/run.log"; fail "the fault is not named"; }
    ;;
  all_workloads)
    # Checked, not timed: the other cases time, and a timed sample here costs
    # an interpret-mode sweep of twice the simulated card's L2.
    "$kernelgate" run --all --suites "$suites" --device sim:h100-sxm --preset ci --protocol none \
      --baselines "$work/baselines" --report-dir "$work/reports" > "$work/run.log" 2>&1 ||
      { cat "$work/run.log"; fail "a candidate failed"; }
    # The cuDNN baselines of the five convolution workloads: no cuDNN here.
    count=$(grep -c "cudnn_eager  not_supported  -- needs cuDNN, which this build does not link" "$work/run.log" || true)
    [ "$count" -eq 5 ] || { cat "$work/run.log"; fail "expected 5 cudnn_eager not_supported, got $count"; }
    ;;
  publish)
    run_small --candidates direct_fp32 || fail "the run failed"
    mkdir -p "$work/store"
    status=0
    "$kernelgate" publish --suites "$suites" --reports "$work/reports" --baselines "$work/store" \
      > "$work/publish.log" 2>&1 || status=$?
    [ "$status" -ne 0 ] || { cat "$work/publish.log"; fail "a simulated run was published"; }
    grep -q "simulated" "$work/publish.log" || { cat "$work/publish.log"; fail "the refusal does not say why"; }
    [ -z "$(ls -A "$work/store")" ] || fail "publish wrote into the store: $(ls -R "$work/store")"
    ;;
  architectures)
    # Every shipped workload has a direct_fp32 candidate.
    workloads=$("$kernelgate" list --suites "$suites" | wc -l)
    for card in a100-sxm:80 b200:100; do
      key=${card%:*} sm=${card#*:}
      "$kernelgate" run --all --candidates direct_fp32 --suites "$suites" --device "sim:$key" --preset ci \
        --protocol none --baselines "$work/baselines" --report-dir "$work/$key" > "$work/$key.log" 2>&1 ||
        { cat "$work/$key.log"; fail "a direct candidate failed on sim:$key"; }
      count=$(grep -c "direct_fp32  passed" "$work/$key.log" || true)
      [ "$count" -eq "$workloads" ] ||
        { cat "$work/$key.log"; fail "expected $workloads direct_fp32 passing on sim:$key, got $count"; }
      for run in "l1_071_conv_transposed_2d implicit_gemm_tf32_wgmma,implicit_gemm_3xtf32_wgmma,implicit_gemm_tf32_bf16corr_wgmma,implicit_gemm_tf32_wgmma_8rows" \
                 "l2_078_conv_transpose3d_max_max_sum fused_tf32_wgmma,fused_3xtf32_wgmma,fused_tf32_bf16corr_wgmma"; do
        read -r workload ids <<<"$run"
        "$kernelgate" run --workload "$workload" --candidates "$ids" --suites "$suites" --device "sim:$key" \
          --preset ci --protocol none --baselines "$work/baselines" --report-dir "$work/$key" \
          >> "$work/$key.wgmma.log" 2>&1 || { cat "$work/$key.wgmma.log"; fail "the wgmma run failed on sim:$key"; }
      done
      count=$(grep -c "not_supported  -- needs sm_90a (wgmma); this GPU is sm_$sm" "$work/$key.wgmma.log" || true)
      [ "$count" -eq 7 ] || { cat "$work/$key.wgmma.log"; fail "expected 7 wgmma candidates not_supported on sim:$key, got $count"; }
      # Refused before its child ran: nothing of the candidate's reached the card.
      if grep -q "a kernel failed" "$work/$key.wgmma.log"; then cat "$work/$key.wgmma.log"; fail "a wgmma kernel ran on sim:$key"; fi
    done
    ;;
  *)
    echo "check_simulated_gpu.sh: unknown case '$case_name'" >&2
    exit 2
    ;;
esac
echo "$case_name: ok"
