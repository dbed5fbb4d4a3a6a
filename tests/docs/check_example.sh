#!/usr/bin/env bash
# docs.adding_a_candidate_example: runs the command docs/adding-a-candidate.md
# gives, with the page's example compiled in, from the source tree (its
# suites and baselines), and requires what the page says: example_fp32 passes
# every check and comes out `new` (no stored record), beside direct_fp32.
# usage: check_example.sh KERNELGATE REPORT_DIR
set -euo pipefail
kernelgate=$1 reports=$2
rm -rf "$reports"
"$kernelgate" run --workload l1_071_conv_transposed_2d --device cpu \
  --preset ci --candidates example_fp32,direct_fp32 --report-dir "$reports"
python3 - "$reports/l1_071_conv_transposed_2d.cpu.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
outcomes = {c["id"]: c["outcome"] for c in report["candidates"]}
if outcomes.get("example_fp32") != "new":
    sys.exit(f"FAILED: the page says example_fp32 comes out new; it is {outcomes.get('example_fp32')}")
print("example_fp32:", outcomes["example_fp32"], "| direct_fp32:", outcomes.get("direct_fp32"))
PY
