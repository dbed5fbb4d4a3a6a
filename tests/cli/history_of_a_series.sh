#!/usr/bin/env bash
# history_of_a_series.sh KERNELGATE SUITES WORK: `kernelgate history` and the
# page's history chart on a series published the way a team publishes one.
#  1. One run's report is published eight times, as if observed on eight
#     days, its latencies 30% higher from the fifth day on and off by under
#     1% from day to day (every sample, the mean and the median scaled
#     alike).
#  2. `kernelgate history` lists the eight records oldest first and finds one
#     change point, slower, at the fifth; the text says so too.
#  3. The HTML page draws the eight points of that series and circles the
#     fifth.
set -u
kernelgate=$1 suites=$2 work=$3
workload=l1_086_conv_depthwise_separable_2d
rm -rf "$work" && mkdir -p "$work/store" "$work/empty-store"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$kernelgate" run --workload "$workload" --suites "$suites" --device cpu --preset ci --candidates fused_tf32 \
  --orders forward --budget 0.1 --min-samples 6 --baselines "$work/empty-store" --report-dir "$work/run" \
  >"$work/run.out" 2>&1 || { cat "$work/run.out" >&2; fail "the run failed"; }

for day in 1 2 3 4 5 6 7 8; do
  python3 - "$work/run/$workload.cpu.json" "$work/day$day" "$day" <<'PY' || fail "cannot make the report of day $day"
import json, os, sys
report, folder, day = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
wobble = [0.004, -0.006, 0.002, -0.003, 0.005, -0.002, 0.001, -0.004][day - 1]
factor = (1.3 if day >= 5 else 1.0) * (1 + wobble)
for c in report["candidates"]:
    record = c.get("record")
    if not record:
        continue
    record["observed"] = f"2026-01-{day:02d}T12:00:00Z"
    latency = record["latency"]
    for key in ("mean_ms", "std_ms", "min_ms", "median_ms", "max_ms"):
        latency[key] *= factor
    latency["samples_ms"] = [s * factor for s in latency["samples_ms"]]
os.makedirs(folder)
json.dump(report, open(os.path.join(folder, os.path.basename(sys.argv[1])), "w"))
PY
  "$kernelgate" publish --reports "$work/day$day" --baselines "$work/store" --suites "$suites" \
    >"$work/publish$day.out" 2>&1 || { cat "$work/publish$day.out" >&2; fail "publish of day $day failed"; }
done

"$kernelgate" history "$workload" --hardware cpu --baselines "$work/store" --suites "$suites" --json \
  >"$work/history.json" 2>"$work/history.err" || { cat "$work/history.err" >&2; fail "history --json failed"; }
python3 - "$work/history.json" <<'PY' || fail "history did not find the one change point"
import json, sys
[file] = json.load(open(sys.argv[1]))
[series] = [i for i in file["implementations"] if i["implementation"] == "fused_tf32"]
points = series["points"]
assert [p["observed"][:10] for p in points] == [f"2026-01-{d:02d}" for d in range(1, 9)], points
changes = [i for i, p in enumerate(points) if p["change_point"]]
assert changes == [4], changes
assert abs(points[4]["change_point"]["ratio"] - 1.3) < 0.01, points[4]
assert points[4]["change_point"]["p_value"] < 1e-4, points[4]
assert abs(series["drift"] - 1.3 * 0.996 / 1.004) < 1e-9 and series["drift_points"] == 8, series
print("change point at", points[4]["observed"], "ratio", points[4]["change_point"]["ratio"])
PY
"$kernelgate" history "$workload" --baselines "$work/store" --suites "$suites" >"$work/history.txt" 2>&1 ||
  { cat "$work/history.txt" >&2; fail "history failed"; }
cat "$work/history.txt"
grep -q "fused_tf32 (measured): 8 records, by median_ms; 1 change point; latest +29.0%" "$work/history.txt" ||
  fail "the summary line is not there"
grep -q "^  2026-01-05T12:00:00Z .* slower: change point: +30.1%" "$work/history.txt" || fail "no change point line"

"$kernelgate" report --html "$work/html" --baselines "$work/store" --suites "$suites" >/dev/null 2>"$work/html.err" ||
  { cat "$work/html.err" >&2; fail "report --html failed"; }
python3 - "$work/html/$workload.html" <<'PY' || fail "the history chart does not show the series"
import re, sys
page = open(sys.argv[1]).read()
points = re.findall(r'<circle class="history-point ([^"]*)" data-implementation="fused_tf32"[^>]*data-observed="([^"]*)"', page)
assert len(points) == 8, points
circled = [observed for classes, observed in points if "change-point" in classes.split()]
assert circled == ["2026-01-05T12:00:00Z"], circled
assert 'class="change-points"' in page
PY
echo "history found the one change point of the series; the page draws and circles it"
