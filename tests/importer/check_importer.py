#!/usr/bin/env python3
"""Runs harness/tools/import_kernelbench.py on problems/ (modules of our own
in KernelBench's convention) and checks what it imports and refuses, and
what the suites it writes say.

    python check_importer.py --kernelgate BIN --out DIR
"""
import argparse
import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
IMPORTER = ROOT / "harness" / "tools" / "import_kernelbench.py"
# The module the shipped example workload was imported from, and that suite.
EXAMPLE = HERE / "problems" / "level1" / "901_scaled_log_softmax.py"
EXAMPLE_SUITE = ROOT / "suites" / "examples" / "l1_901_scaled_log_softmax.json"

# file -> (id, status, a phrase of the reason)
EXPECTED = {
    "901_scaled_log_softmax.py": ("l1_901_scaled_log_softmax", "imported", "agrees with torch float64"),
    "2_conv_relu_pool.py": ("l1_002_conv_relu_pool", "imported", "agrees with torch float64"),
    "3_masked_cross_entropy.py": ("l1_003_masked_cross_entropy", "imported", "agrees with torch float64"),
    "4_symmetric_matmul_with_signs.py": ("l1_004_symmetric_matmul_with_signs", "imported", "agrees with torch float64"),
    "5_position_of_weighted_maximum.py": ("l1_005_position_of_weighted_maximum", "imported",
                                          "agrees with torch float64"),
    "6_dropout.py": (None, "refused", "dropout with p = 0.3 is random in training mode"),
    "7_sort.py": (None, "refused", "no kernelgate op for call_function 'sort'"),
    "8_cross_attention.py": ("l1_008_cross_attention", "imported", "agrees with torch float64"),
    "1_gemm_groupnorm_bias_hardtanh.py": ("l2_001_gemm_groupnorm_bias_hardtanh", "imported",
                                          "agrees with torch float64"),
}


def tensor(suite, name):
    return next(t for t in suite["tensors"] if t["name"] == name)


def check_suites(out):
    """What the imported suites must say, beyond agreeing with torch."""
    problems = []

    def expect(condition, what):
        if not condition:
            problems.append(what)

    softmax = json.loads((out / "l1_901_scaled_log_softmax.json").read_text())
    expect(list(softmax["axes"]) == ["batch_size", "features"], "l1_901: the sizes are the axes, dim and scale not")
    expect([op["op"] for op in softmax["forward"]] == ["scale", "log_softmax"], "l1_901: scale, then log_softmax")
    expect(softmax["presets"]["ci"] == {"features": 8, "batch_size": 8}, "l1_901: a ci preset of 8s")
    masked = json.loads((out / "l1_003_masked_cross_entropy.json").read_text())
    expect(tensor(masked, "targets").get("dtype") == "int64", "l1_003: int64 targets")
    expect(tensor(masked, "targets")["init"]["high"] == "num_classes", "l1_003: targets below num_classes")
    expect(tensor(masked, "mask").get("dtype") == "bool", "l1_003: a bool mask")
    expect("gather" in [op["op"] for op in masked["forward"]], "l1_003: cross entropy gathers the targets")
    signs = json.loads((out / "l1_004_symmetric_matmul_with_signs.json").read_text())
    expect([op["op"] for op in tensor(signs, "A")["init"]["then"]] == ["permute", "add", "scale"],
           "l1_004: A is (A + A.T) / 2 after its draw")
    expect([op["op"] for op in tensor(signs, "signs")["init"]["then"]] == ["scale", "shift"],
           "l1_004: signs are a randint draw times 2 minus 1")
    position = json.loads((out / "l1_005_position_of_weighted_maximum.json").read_text())
    expect(tensor(position, "argmax").get("dtype") == "int64", "l1_005: an int64 output")
    expect(tensor(position, "weight")["source"] == "weight", "l1_005: the weight's state_dict key")
    expect({"op": "shift", "inputs": ["mul"], "output": "sub", "value": -0.25} in position["forward"],
           "l1_005: the module's scalar parameter is a number of the ops")
    attention = json.loads((out / "l1_008_cross_attention.json").read_text())
    expect(attention["forward"] == [{"op": "attention", "inputs": ["queries", "keys", "values"],
                                     "output": "scaled_dot_product_attention"}], "l1_008: one attention op")
    expect(tensor(attention, "values")["shape"] == ["batch", "heads", "keys_length", "value_width"],
           "l1_008: the values' extents are the module's constants")
    gemm = json.loads((out / "l2_001_gemm_groupnorm_bias_hardtanh.json").read_text())
    expect("num_groups" in gemm["axes"] and "bias_shape" not in gemm["axes"],
           "l2_001: num_groups an axis, bias_shape grows with out_features")
    expect(tensor(gemm, "bias")["shape"] == ["out_features"], "l2_001: the bias follows out_features")
    return problems


def check_example(kernelgate, out):
    """The shipped example workload is what the importer writes from its
    module today: a change of the importer shows as a difference here."""
    subprocess.run([sys.executable, str(IMPORTER), "--benchmark", "kernelgate example", "--out", str(out),
                    "--summary", str(out / "summary.json"), "--kernelgate", kernelgate, str(EXAMPLE)], check=True)
    written = json.loads((out / EXAMPLE_SUITE.name).read_text())
    if written != json.loads(EXAMPLE_SUITE.read_text()):
        return [f"{EXAMPLE_SUITE.relative_to(ROOT)} is not what the importer writes from {EXAMPLE.name}"]
    return []


def check_diagnosis(kernelgate):
    """A translation that goes wrong is refused naming the first op that
    differs from torch: the imported log-softmax with its dim changed, then
    with its scale changed (the op before it)."""
    sys.path.insert(0, str(IMPORTER.parent))
    import import_kernelbench as importer  # noqa: E402 (needs torch, like the tool)

    problem = importer.Problem(EXAMPLE)
    translation = importer.Translation(problem.base.model, problem.base, problem.fit)
    translation.translate()
    suite = importer.write_suite(problem, translation)
    suite["presets"] = {"ci": importer.ci_preset(problem, suite)}
    failures = []
    for tamper, named in ((lambda s: s["forward"][1].update(dim=0), "forward[1] (log_softmax -> log_softmax)"),
                          (lambda s: s["forward"][0].update(value=0.25), "forward[0] (scale -> mul)")):
        wrong = json.loads(json.dumps(suite))
        tamper(wrong)
        try:
            importer.self_check(problem, wrong, kernelgate)
            failures.append(f"a wrong {named} passed the self-check")
        except importer.Refused as refusal:
            if named not in str(refusal):
                failures.append(f"the refusal does not name {named}: {refusal}")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernelgate", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    problems = sorted(HERE.glob("problems/level*/*.py"))
    summary_file = out / "summary.json"
    subprocess.run([sys.executable, str(IMPORTER), "--out", str(out / "suites"), "--summary", str(summary_file),
                    "--kernelgate", args.kernelgate] + [str(p) for p in problems], check=True)
    summary = {pathlib.Path(entry["file"]).name: entry for entry in json.loads(summary_file.read_text())}
    failures = []
    for file, (suite_id, status, phrase) in EXPECTED.items():
        entry = summary.get(file)
        if entry is None or entry["id"] != suite_id or entry["status"] != status or phrase not in entry["reason"]:
            failures.append(f"{file}: {entry}, expected {status} {suite_id} with '{phrase}'")
        written = (out / "suites" / f"{suite_id}.json").exists() if suite_id else False
        if written != (status == "imported"):
            failures.append(f"{file}: a suite was {'' if written else 'not '}written")
    failures += check_suites(out / "suites")
    failures += check_diagnosis(args.kernelgate)
    failures += check_example(args.kernelgate, out / "example")
    for failure in failures:
        print("FAIL", failure)
    print("importer: " + ("FAIL" if failures else f"PASS ({len(EXPECTED)} problems)"))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
