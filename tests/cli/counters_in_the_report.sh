#!/usr/bin/env bash
# counters_in_the_report.sh KERNELGATE SUITES WORK: `kernelgate run --counters`
# on cpu puts interpret mode's counters of each candidate into the report
# (model.counters), and without the flag there are none.
#  - l1_086's fused_tf32 at the ci preset: the footprint is every input and
#    weight byte read once and every output byte written once; its loads go
#    through cp.async; its mma.sync FLOPs are those of its tiles; its shared
#    wavefronts are at least the ideal ones.
#  - The counts are the same on a second run (deterministic).
set -u
kernelgate=$1 suites=$2 work=$3
workload=l1_086_conv_depthwise_separable_2d
rm -rf "$work" && mkdir -p "$work/empty-store"
fail() { echo "FAIL: $*" >&2; exit 1; }
run() {  # run FOLDER [more options]
  local folder=$1; shift
  "$kernelgate" run --workload "$workload" --suites "$suites" --device cpu --preset ci --candidates fused_tf32 \
    --orders forward --protocol none --baselines "$work/empty-store" --report-dir "$work/$folder" "$@" \
    >"$work/$folder.out" 2>&1 || { cat "$work/$folder.out" >&2; fail "the run into $folder failed"; }
}
run counted --counters
run again --counters
run plain

python3 - "$work" "$workload" <<'PY' || fail "the counters are not what they must be"
import json, sys
work, workload = sys.argv[1], sys.argv[2]
def candidate(folder):
    report = json.load(open(f"{work}/{folder}/{workload}.cpu.json"))
    [c] = report["candidates"]
    return report, c
report, c = candidate("counted")
counters = c["model"]["counters"]
axes = report["workload"]["axes"]
n, cin, cout, h, w = axes["batch_size"], axes["in_channels"], axes["out_channels"], axes["height"], axes["width"]
k, s, p, d = axes["kernel_size"], axes["stride"], axes["padding"], axes["dilation"]
out = lambda size: (size + 2 * p - d * (k - 1) - 1) // s + 1
input_bytes = 4 * (n * cin * h * w + cin * k * k + cout * cin)  # x, depthwise and pointwise weights
output_bytes = 4 * n * cout * out(h) * out(w)
assert counters["dram_read_bytes"] == input_bytes, (counters["dram_read_bytes"], input_bytes)
assert counters["dram_write_bytes"] == output_bytes, (counters["dram_write_bytes"], output_bytes)
assert counters["cp_async_bytes"] > 0 and counters["global_load_requests"] > 0
assert counters["tensor_flops"] == counters["mma_m16n8k8_flops"] > 0
assert counters["shared_wavefronts"] >= counters["shared_wavefronts_ideal"] > 0
assert counters["launches"] >= 1 and counters["barriers"] > 0
_, again = candidate("again")
assert again["model"] == c["model"], "a second run counted differently"
_, plain = candidate("plain")
assert "model" not in plain, "counters without --counters"
print("counters:", ", ".join(f"{name} {value}" for name, value in counters.items()))
PY
