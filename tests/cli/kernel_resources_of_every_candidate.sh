#!/usr/bin/env bash
# kernel_resources_of_every_candidate.sh KERNELGATE SUITES WORK: every kernel
# a candidate launches has its registers in kernels/resources.json, so a
# model run's occupancy counts them. A candidate changed or added without
# re-running ci/kernel-resources.sh fails here, naming it.
set -u
kernelgate=$1 suites=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
for suite in "$suites"/*/*.json; do
  workload=$(basename "$suite" .json)
  "$kernelgate" model "$workload" --suites "$suites" --preset ci --blocks 2 --hardware h100-sxm --json \
    >"$work/$workload.json" 2>"$work/$workload.err" || { cat "$work/$workload.err" >&2; fail "kernelgate model $workload failed"; }
done
python3 - "$work"/*.json <<'PY' || fail "run ci/kernel-resources.sh after changing a candidate's kernels"
import json, sys
missing, checked = [], 0
for path in sys.argv[1:]:
    model = json.load(open(path))
    for c in model["candidates"]:
        if "counters" not in c:
            continue
        checked += 1
        occupancy = c["hardware"]["h100-sxm"]["occupancy"]
        if c["counters"]["launches_without_resources"] or not occupancy["registers_known"]:
            missing.append(f'{model["workload"]}.{c["id"]}')
assert checked > 0, "no candidate was counted"
assert not missing, "kernels without registers in kernels/resources.json: " + ", ".join(missing)
print(f"{checked} counted candidates: every launched kernel's registers known")
PY
