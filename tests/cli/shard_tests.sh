#!/usr/bin/env bash
# shard_tests.sh SOURCE BUILD CTEST: ci/shard-tests.sh splits the tests of a label
# over N runners, here the cpu label of this build (the GPU workflow's
# shards use it on h100 and h200): for N = 1, 2, 3 and 8 (more shards than
# workloads), every workload test <workload>.cpu is in exactly one shard,
# every other test of the label only in shard 1, and reports.schema in
# every shard; a malformed shard is an error.
set -euo pipefail
source=$1 build=$2 ctest=${3:-ctest}
cd "$source"
kernelgate=$build/bin/kernelgate
listed() {  # listed ARGS...: the names of the cpu-labelled tests those arguments select
  "$ctest" --test-dir "$build" -N -L '^cpu$' "$@" | sed -n 's/^ *Test *#[0-9]*: //p' | sort
}
all=$(listed)
workload_tests=$("$kernelgate" list --suites suites | awk '{print $1 ".cpu"}' | sort)
is_workload() { grep -xF -f <(printf '%s\n' "$workload_tests") || true; }
not_workload() { grep -vxF -f <(printf '%s\n' "$workload_tests") || true; }
[ "$(is_workload <<<"$all")" = "$workload_tests" ] || { echo "FAILED: the cpu label lacks workload tests"; exit 1; }
for n in 1 2 3 8; do
  union=""
  for i in $(seq 1 "$n"); do
    selection=$(ci/shard-tests.sh "$kernelgate" cpu "$i/$n")
    args=()
    if [ -n "$selection" ]; then mapfile -t args <<<"$selection"; fi
    mine=$(listed "${args[@]}")
    grep -qx 'reports.schema' <<<"$mine" || { echo "FAILED: shard $i/$n lacks reports.schema"; exit 1; }
    if [ "$i" -eq 1 ]; then
      [ "$(not_workload <<<"$mine")" = "$(not_workload <<<"$all")" ] ||
        { echo "FAILED: shard 1/$n does not run every test of no workload"; exit 1; }
    else
      extra=$(not_workload <<<"$mine" | grep -vx 'reports.schema' || true)
      [ -z "$extra" ] || { echo "FAILED: shard $i/$n runs tests of no workload: $extra"; exit 1; }
    fi
    union+=$(is_workload <<<"$mine")$'\n'
  done
  twice=$(sed '/^$/d' <<<"$union" | sort | uniq -d)
  [ -z "$twice" ] || { echo "FAILED: with $n shards these ran twice: $twice"; exit 1; }
  [ "$(sed '/^$/d' <<<"$union" | sort)" = "$workload_tests" ] ||
    { echo "FAILED: with $n shards the workload tests run are not the label's"; exit 1; }
done
if ci/shard-tests.sh "$kernelgate" cpu 4/3 >/dev/null 2>&1; then echo "FAILED: shard 4/3 was accepted"; exit 1; fi
echo "every workload test in exactly one shard of 1, 2, 3 and 8; the rest in shard 1"
