#!/usr/bin/env bash
# ci/model-sampling-error.sh [KERNELGATE]: how far `kernelgate model`'s
# sampled counts are from the whole grid's, at sizes where every block can
# run: for each case below, the model with 3, 4, 8 and 16 blocks per launch
# against the model with every block, as a Markdown table of the relative
# error of the modelled time (h100-sxm) and of the counters the roofline
# reads. Minutes on 2 cores; docs/roofline.md quotes its output.
set -euo pipefail
cd "$(dirname "$0")/.."
kernelgate=$(ci/cpu-kernelgate.sh "${1:-}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cases=(  # name workload axes candidates
  "l1_071 l1_071_conv_transposed_2d batch_size=2 implicit_gemm_tf32,implicit_gemm_tf32_wgmma"
  "l1_086 l1_086_conv_depthwise_separable_2d batch_size=1,height=128,width=256 fused_tf32,direct_fp32"
  "l2_078 l2_078_conv_transpose3d_max_max_sum batch_size=2,depth=16,height=16,width=16 fused_tf32,fused_tf32_wgmma"
)
for entry in "${cases[@]}"; do
  read -r name workload axes candidates <<<"$entry"
  for blocks in 3 4 8 16 all; do
    echo "== $name, $blocks blocks" >&2
    "$kernelgate" model "$workload" --axes "$axes" --candidates "$candidates" --hardware h100-sxm --timeout 600 \
      --blocks "$([ "$blocks" = all ] && echo 1048576 || echo "$blocks")" --json >"$work/$name-$blocks.json"
  done
done
python3 - "$work" "${cases[@]}" <<'PY'
import json, sys
work, cases = sys.argv[1], [c.split() for c in sys.argv[2:]]
names = [("time", None), ("load sectors", "global_load_sectors"), ("store sectors", "global_store_sectors"),
         ("DRAM", "dram_bytes"), ("wavefronts", "shared_wavefronts"), ("tensor FLOPs", "tensor_flops")]
print("| case | candidate | grid | blocks run | " + " | ".join(n for n, _ in names) + " |")
print("|---|---|---:|---:|" + "---:|" * len(names))
for name, workload, axes, _ in cases:
    whole = {c["id"]: c for c in json.load(open(f"{work}/{name}-all.json"))["candidates"]}
    for blocks in ("3", "4", "8", "16"):
        for c in json.load(open(f"{work}/{name}-{blocks}.json"))["candidates"]:
            truth = whole[c["id"]]
            cells = []
            for _, counter in names:
                now = c["hardware"]["h100-sxm"]["time_ms"] if counter is None else c["counters"][counter]
                then = truth["hardware"]["h100-sxm"]["time_ms"] if counter is None else truth["counters"][counter]
                cells.append(f"{100 * (now / then - 1):+.1f}%" if then else "—")
            print(f"| {workload} at {axes} | `{c['id']}` | {c['counters']['blocks']} | {blocks} | " +
                  " | ".join(cells) + " |")
PY
