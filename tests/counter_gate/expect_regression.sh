#!/usr/bin/env bash
# expect_regression.sh KERNELGATE SUITES BASELINES WORK WORKLOAD CANDIDATE COUNTER:
# a counted cpu run of CANDIDATE against the modelled record in BASELINES
# exits 1, with the candidate `regressed` and COUNTER named in its latency
# check, and leaves the baselines as they were.
set -u
kernelgate=$1 suites=$2 baselines=$3 work=$4 workload=$5 candidate=$6 counter=$7
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
stored=$(sha256sum "$baselines/$workload/cpu.json") || fail "no shipped $baselines/$workload/cpu.json"
"$kernelgate" run --workload "$workload" --suites "$suites" --baselines "$baselines" --device cpu --preset ci \
  --candidates "$candidate" --counters --orders forward --report-dir "$work/reports" >"$work/run.out" 2>&1
status=$?
cat "$work/run.out"
[ "$status" = 1 ] || fail "expected exit 1 (a gate failed), got $status"
python3 - "$work/reports/$workload.cpu.json" "$candidate" "$counter" <<'PY' || fail "not the regression expected"
import json, sys
report, candidate, counter = sys.argv[1], sys.argv[2], sys.argv[3]
[c] = [c for c in json.load(open(report))["candidates"] if c["id"] == candidate]
assert c["outcome"] == "regressed", c["outcome"]
[latency] = [check for check in c["checks"] if check["name"] == "latency"]
assert latency["outcome"] == "regressed", latency
assert "regressed on cpu" in latency["message"] and counter + " " in latency["message"], latency["message"]
assert c["gate"]["rule"] == "counters", c["gate"]
print("regressed as expected:", latency["message"])
PY
[ "$(sha256sum "$baselines/$workload/cpu.json")" = "$stored" ] || fail "the run changed the stored baselines"
