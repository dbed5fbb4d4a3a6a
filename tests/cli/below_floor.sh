#!/usr/bin/env bash
# below_floor.sh KERNELGATE SUITES FIXTURE WORK: a time no hardware reaches
# is a finding, not a record (floor_rule.hpp). From the fixture H100 run, at
# l1_071's full axes (floor 0.306 ms on h100-sxm for every precision), one
# with fused_tf32's samples at 0.1 ms, under half of it:
#  1. `kernelgate gate` of it fails fused_tf32 as contract_violation
#     (below_floor), exit 1, and its report holds no record of it;
#  2. `kernelgate compare` with it as head fails the same candidate;
#  3. the same results with the samples at 0.2 ms (above half) gate with
#     fused_tf32 new, exit 0.
set -u
kernelgate=$1 suites=$2 fixture=$3 work=$4
rm -rf "$work" && mkdir -p "$work/empty-store"
fail() { echo "FAIL: $*" >&2; exit 1; }
results() {  # results FILE MEDIAN_MS: the fixture at full axes, fused_tf32 near MEDIAN_MS
  python3 - "$fixture" "$1" "$2" <<'PY'
import json, statistics, sys
run = json.load(open(sys.argv[1]))
median = float(sys.argv[3])
run["identity"] = ""
run["axes"] = {"batch_size": 8, "in_channels": 32, "out_channels": 32, "kernel_size": 3, "height_in": 512,
               "width_in": 1024, "stride": 1, "padding": 0, "output_padding": 0, "groups": 1}
for c in run["candidates"]:
    if c["id"] != "fused_tf32":
        continue
    samples = [median * (1 + 0.01 * (i - 5)) for i in range(11)]
    l = c["latency"]
    l.update(n=len(samples), samples_ms=samples, mean_ms=statistics.mean(samples), std_ms=statistics.stdev(samples),
             min_ms=min(samples), max_ms=max(samples), median_ms=statistics.median(samples))
    l["cv"] = l["std_ms"] / l["mean_ms"]
    l.pop("rounds", None)
json.dump(run, open(sys.argv[2], "w"), indent=1)
PY
}
results "$work/fast.json" 0.1 || fail "could not write the results"
results "$work/plausible.json" 0.2 || fail "could not write the results"

"$kernelgate" gate --results "$work/fast.json" --baselines "$work/empty-store" --allow-empty-baselines \
  --suites "$suites" --report-dir "$work/fast" >"$work/fast.out" 2>&1
code=$?
[ "$code" -eq 1 ] || { cat "$work/fast.out" >&2; fail "gate of a time under the floor exited $code, not 1"; }
python3 - "$work/fast/l1_071_conv_transposed_2d.h100-sxm.json" <<'PY' || fail "the gate's report is not what it must be"
import json, sys
report = json.load(open(sys.argv[1]))
fused = next(c for c in report["candidates"] if c["id"] == "fused_tf32")
assert fused["outcome"] == "contract_violation", fused["outcome"]
assert fused["message"].startswith("below_floor: "), fused["message"]
assert fused.get("record") is None, "a time under the floor became a record"
PY

"$kernelgate" compare --base "$work/plausible.json" --head "$work/fast.json" --suites "$suites" \
  >"$work/compare.out" 2>&1
code=$?
[ "$code" -eq 1 ] || { cat "$work/compare.out" >&2; fail "compare with a head under the floor exited $code, not 1"; }
grep -q "fused_tf32\` | contract_violation | .*below_floor" "$work/compare.out" ||
  { cat "$work/compare.out" >&2; fail "compare does not name below_floor"; }

"$kernelgate" gate --results "$work/plausible.json" --baselines "$work/empty-store" --allow-empty-baselines \
  --suites "$suites" --report-dir "$work/plausible" >"$work/plausible.out" 2>&1 ||
  { cat "$work/plausible.out" >&2; fail "gate of a time above half the floor failed"; }
echo "below the floor: gate and compare fail it; above half of it, the gate takes it"
