#!/usr/bin/env bash
# shards_join.sh KERNELGATE SUITES WORK: `kernelgate run --all --shard I/N`
# on N runners, their report folders joined into one, gives what one
# unsharded run gives: the same workloads, each exactly once, with the same
# verdicts per candidate, one joined summary, and `kernelgate list --shard`
# naming what each shard ran. Interpret mode, one
# candidate per workload, checked not timed: about 2 s a run.
set -euo pipefail
kernelgate=$1 suites=$2 work=$3
rm -rf "$work"
mkdir -p "$work/baselines" "$work/joined"
run() {  # run REPORT_DIR [--shard I/N]
  local dir=$1; shift
  "$kernelgate" run --all "$@" --suites "$suites" --preset ci --device cpu --candidates direct_fp32 \
    --protocol none --orders forward --baselines "$work/baselines" --report-dir "$dir" --quiet
}
run "$work/whole"
for shard in 1 2 3; do
  run "$work/shard-$shard" --shard "$shard/3"
  cp "$work/shard-$shard"/*.cpu.* "$work/joined/"
done

# Verdicts: the run's outcome per workload, and per candidate its outcome and
# how the gate judged it; each workload in exactly one shard.
python3 - "$work" <<'PY'
import json, pathlib, sys
work = pathlib.Path(sys.argv[1])
def verdicts(folder):
    found = {}
    for path in sorted(folder.glob("*.cpu.json")):
        report = json.loads(path.read_text())
        found[report["workload"]["id"]] = (report["outcome"], sorted(
            (c["id"], c["outcome"], c["gate"]["rule"], c["gate"]["unjudged"]) for c in report["candidates"]))
    return found
whole, joined = verdicts(work / "whole"), verdicts(work / "joined")
shards = [set(verdicts(work / f"shard-{i}")) for i in (1, 2, 3)]
problems = []
if len(whole) < 3:
    problems.append(f"the unsharded run wrote {len(whole)} reports; want every workload")
if sum(len(s) for s in shards) != len(set().union(*shards)):
    problems.append(f"a workload ran in two shards: {shards}")
if set().union(*shards) != set(whole):
    problems.append(f"the shards ran {sorted(set().union(*shards))}, the whole run {sorted(whole)}")
if joined != whole:
    problems.append(f"joined verdicts differ:\n  joined {joined}\n  whole  {whole}")
for problem in problems:
    print("FAILED:", problem)
sys.exit(1 if problems else 0)
PY

# `kernelgate list --shard I/N` names exactly the workloads that shard ran
# (the GPU workflow's shards pick their CTest cases with it).
for shard in 1 2 3; do
  listed=$("$kernelgate" list --suites "$suites" --shard "$shard/3" | awk '{print $1}' | sort)
  ran=$(cd "$work/shard-$shard" && ls -- *.cpu.json | sed 's/\.cpu\.json$//' | sort)
  [ "$listed" = "$ran" ] || { echo "FAILED: list --shard $shard/3 names $listed; the shard ran $ran"; exit 1; }
done

# One summary of the joined folder, naming every workload.
"$kernelgate" summarize "$work/joined" > "$work/summary.md"
for report in "$work"/whole/*.cpu.json; do
  workload=$(basename "$report" .cpu.json)
  grep -q "### .* $workload on cpu" "$work/summary.md" || { echo "FAILED: the joined summary lacks $workload"; exit 1; }
done
echo "3 shards joined give the unsharded run's verdicts for $(ls "$work"/whole/*.cpu.json | wc -l) workloads"
