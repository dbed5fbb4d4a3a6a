#!/usr/bin/env bash
# slower_head.sh ARGS...: stands for a head build whose kernels are three
# times slower: runs $KERNELGATE_SLOWER_HEAD_OF (a kernelgate binary) with
# ARGS, then multiplies every sample in the --results file it wrote by 3.
# For the A/B test of ci/gate-ab.sh, where base and head are otherwise the
# same binary.
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
            c["latency"]["samples_ms"] = [s * 3 for s in c["latency"]["samples_ms"]]
json.dump(runs, open(sys.argv[1], "w"))
PY
fi
exit "$code"
