#!/usr/bin/env bash
# slower_head.sh ARGS...: stands for a head build whose kernels are ten
# times slower: runs $KERNELGATE_SLOWER_HEAD_OF (a kernelgate binary) with
# ARGS, then multiplies every sample in the --results file it wrote by 10.
# For the A/B test of ci/gate-ab.sh, where base and head are otherwise the
# same binary. Ten, not a small factor: the rounds are separate
# interpret-mode runs whose wall clocks moved by 2x between rounds on a
# loaded 2-core CI machine (268 then 139 ms), which left a 3x head's 99%
# interval at 1.499x, under the 1.5x the test's tolerance needs to call it
# regressed. With 10x the rounds would have to differ by more than 6x.
set -u
kernelgate=${KERNELGATE_SLOWER_HEAD_OF:?set KERNELGATE_SLOWER_HEAD_OF to a kernelgate binary}
results=""
previous=""
for arg in "$@"; do
  [ "$previous" = --results ] && results=$arg
  previous=$arg
done
"$kernelgate" "$@"
code=$?
if [ -n "$results" ] && [ -f "$results" ]; then
  python3 - "$results" <<'PY' || exit 3
import json, sys
runs = json.load(open(sys.argv[1]))
for run in runs:
    for c in run["candidates"]:
        if c.get("latency"):
            c["latency"]["samples_ms"] = [s * 10 for s in c["latency"]["samples_ms"]]
json.dump(runs, open(sys.argv[1], "w"))
PY
fi
exit "$code"
