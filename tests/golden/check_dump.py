#!/usr/bin/env python3
"""Checks a `kernelgate reference --dump DIR` against PyTorch.

    kernelgate reference l1_071_conv_transposed_2d --axes stride=2,... --dump DIR
    python3 tests/golden/check_dump.py DIR --kernelbench KERNELBENCH_CHECKOUT

It checks that every input and parameter is what the documented generator
(docs/inputs.md, reimplemented here in numpy) gives, and that the float64
reference output agrees with the KernelBench module run in float64 by torch
(relative L2 error below --bound): the problem file the suite's origin names,
from the checkout, or without --kernelbench the hand-written module of
kernelbench_modules.py (the first three workloads only). Exit status 0 when
both hold.
"""
import argparse
import json
import pathlib
import sys

import numpy as np

from kernelbench_modules import generate, input_set_seed, kernelbench_suites, problem_folder, rel_l2, run_float64, run_kernelbench

SUITES = pathlib.Path(__file__).resolve().parent.parent.parent / "suites"


def main():
    parser = argparse.ArgumentParser(description="Check a kernelgate reference dump against torch")
    parser.add_argument("dump", help="folder written by `kernelgate reference --dump`")
    parser.add_argument("--kernelbench", help="a KernelBench checkout: check against the problem file itself")
    parser.add_argument("--bound", type=float, default=1e-6, help="relative L2 bound (default 1e-6)")
    args = parser.parse_args()

    folder = pathlib.Path(args.dump)
    manifest = json.loads((folder / "manifest.json").read_text())
    workload, axes = manifest["workload"], manifest["axes"]
    # A dump holds set A of a run's seed: its generator seed, derived as
    # docs/inputs.md says.
    seed = input_set_seed(manifest["seed"], 0)
    if manifest["input_seed"] != seed:
        print(f"FAIL input_seed {manifest['input_seed']}: docs/inputs.md derives {seed}")
        return 1
    tensors, ours, ok = {}, None, True
    for entry in manifest["tensors"]:
        array = np.load(folder / entry["file"])
        if list(array.shape) != list(entry["shape"]):
            print(f"FAIL {entry['name']}: shape {array.shape}, manifest says {entry['shape']}")
            ok = False
        if entry["role"] == "output":
            ours = array
            continue
        if "then" in entry:
            # The ops after the draw are the op library's; this mirror has the draws only.
            print(f"skip {entry['name']}: built by ops after its draw, not reproduced here")
            tensors[entry["name"]] = array
            continue
        expected = generate(workload, axes, seed, entry["name"], entry["shape"], entry)
        same = np.array_equal(array, expected)
        print(f"{'ok  ' if same else 'FAIL'} {entry['name']}: generator reproduced "
              f"{'bit for bit' if same else 'WRONGLY'}")
        ok &= same
        tensors[entry["name"]] = array
    if args.kernelbench:
        suite = kernelbench_suites(SUITES).get(workload)
        if suite is None:
            sys.exit(f"{workload}: no suite under {SUITES} names a KernelBench problem file")
        want = run_kernelbench(problem_folder(args.kernelbench) / suite["origin"]["file"], suite, axes, tensors)
    else:
        want = run_float64(workload, axes, tensors)
        if want is None:
            sys.exit(f"{workload}: no hand-written module; give --kernelbench")
    error = rel_l2(ours, want)
    good = error < args.bound
    print(f"{'ok  ' if good else 'FAIL'} output {tuple(want.shape)}: rel_l2 against torch float64 "
          f"= {error:.3e} (bound {args.bound:g})")
    ok &= good
    print(f"{workload} {','.join(f'{k}={v}' for k, v in axes.items())} seed {seed}: "
          f"{'PASS' if ok else 'FAIL'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
