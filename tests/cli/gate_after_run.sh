#!/usr/bin/env bash
# gate_after_run.sh KERNELGATE SUITES WORK: the gate judges samples, through
# `kernelgate run` and, offline, through `kernelgate gate`.
#  1. A first run (every candidate new) is published: the store's records
#     then carry their samples (version 2).
#  2. A second run gates its interpret-mode latencies against them
#     (--gate-interpret-latency) and writes its --results; `kernelgate gate`
#     on those results gives every candidate the same outcome and checks.
#  3. `kernelgate compare` of those results with themselves passes, and
#     with a copy whose samples are 3 times slower regresses.
#  4. A record whose samples lie from 1000 times below its mean to 1000
#     times above can never be told apart from anything: the run times the
#     candidate again up to the suite's max_rounds (3) and then fails it as
#     `inconclusive`.
set -u
kernelgate=$1 suites=$2 work=$3
workload=l1_086_conv_depthwise_separable_2d
rm -rf "$work" && mkdir -p "$work/store" "$work/empty-store"
fail() { echo "FAIL: $*" >&2; exit 1; }
run() {
  "$kernelgate" run --workload "$workload" --suites "$suites" --device cpu --preset ci \
    --candidates fused_tf32 --orders forward --budget 0.1 --min-samples 6 "$@"
}

run --baselines "$work/empty-store" --report-dir "$work/first" >"$work/first.out" 2>&1 ||
  { cat "$work/first.out" >&2; fail "the first run failed"; }
"$kernelgate" publish --reports "$work/first" --baselines "$work/store" --suites "$suites" >"$work/publish.out" 2>&1 ||
  { cat "$work/publish.out" >&2; fail "publish failed"; }
store_file="$work/store/$workload/cpu.json"
python3 - "$store_file" <<'PY' || fail "the published records do not carry their samples"
import json, sys
f = json.load(open(sys.argv[1]))
assert f["schema_version"] == 3 and f["kind"] == "kernelgate-baseline", (f["schema_version"], f.get("kind"))
for r in f["records"]:
    s = r["latency"]["samples_ms"]
    assert len(s) == r["latency"]["n"] and s == sorted(s), r["implementation"]
PY

run --baselines "$work/store" --gate-interpret-latency --report-dir "$work/second" \
  --results "$work/second.json" >"$work/second.out" 2>&1
run_code=$?
"$kernelgate" gate --results "$work/second.json" --baselines "$work/store" --suites "$suites" \
  --gate-interpret-latency --report-dir "$work/offline" >"$work/offline.out" 2>&1
gate_code=$?
cat "$work/second.out" "$work/offline.out" >&2
[ "$run_code" -eq "$gate_code" ] || fail "run exited $run_code, gate $gate_code"
python3 - "$work/second/$workload.cpu.json" "$work/offline/$workload.cpu.json" <<'PY' || fail "the verdicts differ"
import json, sys
run, offline = (json.load(open(p)) for p in sys.argv[1:])
def verdicts(report):
    return [(c["id"], c["outcome"], c["checks"], c["gate"]) for c in report["candidates"]]
assert verdicts(run) == verdicts(offline), (verdicts(run), verdicts(offline))
for c in run["candidates"]:
    assert c["gate"]["rule"] == "samples", c["gate"]
print("same verdicts:", [(c["id"], c["outcome"]) for c in run["candidates"]])
PY

# The A/B comparison of two results files: the run against itself passes
# (at a 100% tolerance: a handful of wall-clock samples cannot confirm 5%);
# against a head whose every sample is 3 times slower it regresses.
"$kernelgate" compare --base "$work/second.json" --head "$work/second.json" --suites "$suites" \
  --gate-interpret-latency --latency-tolerance 1 >"$work/same.out" 2>&1 || { cat "$work/same.out" >&2; fail "compare of a run with itself failed"; }
grep -q "| \`fused_tf32\` | passed | 1.000x |" "$work/same.out" || { cat "$work/same.out" >&2; fail "no passed row"; }
python3 - "$work/second.json" "$work/slower.json" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))
for c in runs[0]["candidates"]:
    c["latency"]["samples_ms"] = [s * 3 for s in c["latency"]["samples_ms"]]
json.dump(runs, open(sys.argv[2], "w"))
PY
"$kernelgate" compare --base "$work/second.json" --head "$work/slower.json" --suites "$suites" \
  --gate-interpret-latency >"$work/slower.out" 2>&1
code=$?
cat "$work/slower.out" >&2
[ "$code" -eq 1 ] || fail "compare of a 3x slower head exited $code, not 1"
grep -q "| \`fused_tf32\` | regressed | 3.000x |" "$work/slower.out" || fail "no regressed row"

python3 - "$store_file" <<'PY'
import json, statistics, sys
f = json.load(open(sys.argv[1]))
for r in f["records"]:
    if r["implementation"] == "fused_tf32":
        latency = r["latency"]
        samples = sorted(latency["mean_ms"] * f for f in (1e-3, 1e-2, 0.1, 10.0, 100.0, 1000.0))
        # A record consistent with its own samples (a file's summary must be its samples').
        latency.update(samples_ms=samples, n=len(samples), mean_ms=statistics.fmean(samples),
                       std_ms=statistics.stdev(samples), min_ms=samples[0], median_ms=statistics.median(samples),
                       max_ms=samples[-1])
        latency["cv"] = latency["std_ms"] / latency["mean_ms"]
        for entry in f["ranking"]:
            if entry["implementation"] == "fused_tf32":
                entry["mean_ms"] = latency["mean_ms"]
f["ranking"].sort(key=lambda entry: entry["mean_ms"])
for rank, entry in enumerate(f["ranking"], 1):
    entry["rank"] = rank
json.dump(f, open(sys.argv[1], "w"), indent=2)
PY
run --baselines "$work/store" --gate-interpret-latency --report-dir "$work/third" \
  >"$work/third.out" 2>&1
code=$?
cat "$work/third.out" >&2
[ "$code" -eq 1 ] || fail "expected exit 1 for an inconclusive candidate, got $code"
python3 - "$work/third/$workload.cpu.json" <<'PY' || fail "not inconclusive after 3 rounds"
import json, sys
c = [c for c in json.load(open(sys.argv[1]))["candidates"] if c["id"] == "fused_tf32"][0]
assert c["outcome"] == "inconclusive", c["outcome"]
assert c["latency"]["rounds"] == 3, c["latency"]["rounds"]
assert len(c["latency"]["samples_ms"]) == c["latency"]["n"]
assert "cannot tell" in c["message"], c["message"]
PY
echo "the gate judged samples; gate gave the run's verdicts; compare saw the slowdown; an inconclusive record was timed 3 rounds, then failed"
