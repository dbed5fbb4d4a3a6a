#!/usr/bin/env bash
# model_of_a_workload.sh KERNELGATE SUITES BASELINES WORK: `kernelgate model`
# counts a sample of each launch's blocks and scales it to the grid.
#  - With more blocks allowed than the grid has, every block runs, and the
#    counters are those of a counted run: the shipped modelled records of
#    l1_086 at the ci preset (baselines/<workload>/cpu.json).
#  - With 2 of the 3 blocks, 2 ran and the counts stand for 3.
#  - Each GPU key asked for has its modelled time, bound and floor.
#  - A persistent kernel (l1_071's implicit GEMM) launches the grid each GPU
#    key holds at once: h100-pcie's 114 SMs get a run of their own, smaller
#    in proportion, and h200 shares h100-sxm's 132.
set -u
kernelgate=$1 suites=$2 baselines=$3 work=$4
workload=l1_086_conv_depthwise_separable_2d
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
model() {  # model FILE [options]
  local file=$1; shift
  "$kernelgate" model "$workload" --suites "$suites" --preset ci --candidates fused_tf32,fused_fp32 --json "$@" \
    >"$work/$file" 2>"$work/$file.err" || { cat "$work/$file.err" >&2; fail "kernelgate model $* failed"; }
}
model whole.json --blocks 100000 --hardware h100-sxm,h100-pcie,h200
model sampled.json --blocks 2
"$kernelgate" model l1_071_conv_transposed_2d --suites "$suites" --axes batch_size=2,height_in=190,width_in=446 \
  --candidates implicit_gemm_tf32 --hardware h100-sxm,h100-pcie,h200 --blocks 4 --json >"$work/persistent.json" \
  2>"$work/persistent.err" || { cat "$work/persistent.err" >&2; fail "kernelgate model of a persistent kernel failed"; }

python3 - "$work" "$baselines/$workload/cpu.json" <<'PY' || fail "the model is not what it must be"
import json, sys
work, stored_file = sys.argv[1], sys.argv[2]
whole = json.load(open(f"{work}/whole.json"))
sampled = json.load(open(f"{work}/sampled.json"))
stored = {r["implementation"]: r["counters"] for r in json.load(open(stored_file))["records"] if r["trust"] == "modelled"}
assert whole["trust"] == "modelled" and whole["axes"]["batch_size"] == 2, whole["axes"]
for c in whole["candidates"]:
    counters = c["counters"]
    assert counters["blocks_run"] == counters["blocks"] == 3, counters
    for name, value in stored[c["id"]].items():
        assert counters[name] == value, (c["id"], name, counters[name], value)
    assert sorted(c["hardware"]) == ["h100-pcie", "h100-sxm", "h200"], c["hardware"].keys()
    for key, m in c["hardware"].items():
        assert m["bound"] in m["terms"] and m["time_ms"] == max(t["ms"] for t in m["terms"].values()), m
        assert abs(m["above_floor"] - m["time_ms"] / m["floor_ms"]) < 1e-12, m
for c in sampled["candidates"]:
    counters = c["counters"]
    assert counters["blocks_run"] == 2 and counters["blocks"] == 3, counters
    assert sorted(c["hardware"]) == ["h100-sxm", "h200"], c["hardware"].keys()  # the default keys
    full = next(w for w in whole["candidates"] if w["id"] == c["id"])["counters"]
    # Scaled, not raw: two blocks' counts times 3/2 are near the three blocks'.
    for name in ("global_load_sectors", "shared_wavefronts", "tensor_flops"):
        assert 0.8 * full[name] <= counters[name] <= 1.25 * full[name], (c["id"], name, counters[name], full[name])
persistent = json.load(open(f"{work}/persistent.json"))["candidates"][0]
hw = persistent["hardware"]
assert list(hw) == ["h100-sxm", "h100-pcie", "h200"], list(hw)  # in the order asked for
assert [hw[k]["grid_sized_for"] for k in hw] == ["h100-sxm", "h100-pcie", "h100-sxm"], hw
assert "counters" not in hw["h100-sxm"] and "counters" not in hw["h200"], hw
sxm_blocks, pcie_blocks = persistent["counters"]["blocks"], hw["h100-pcie"]["counters"]["blocks"]
assert sxm_blocks % 132 == 0 and sxm_blocks * 114 == pcie_blocks * 132, (sxm_blocks, pcie_blocks)
print("model: whole grid = the stored counters; a sample of 2 of 3 blocks scaled to the grid; "
      f"a persistent grid of {sxm_blocks} blocks on h100-sxm, {pcie_blocks} on h100-pcie")
PY
