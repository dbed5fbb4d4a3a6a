#!/usr/bin/env python3
"""Builds the golden fixtures of tests/golden/fixtures from real PyTorch.

The cases listed below give the first three workloads non-default geometry;
every other KernelBench suite under suites/ gets a case at its `ci` preset.
For each case it asks kernelgate for the generated inputs and parameters
(`kernelgate reference --dump`), runs the problem's own module in float64 with torch on the CPU, and
stores inputs, parameters and torch's output as .npy plus
fixtures/manifest.json. The module is KernelBench's: its problem file (the
suite's `origin.file`, read from a KernelBench checkout) is executed with its
size constants and its Model's arguments set to the case's axes, which are
named as the file names them. Before a fixture is written, two more
evaluations must agree with that module to 1e-12: the suite's own forward pass
(its op list, which kernelgate evaluates) run in torch, and, for the first
three workloads, the module classes written out by hand in
kernelbench_modules.py. The GoogleTest golden test reads the fixtures; torch
and KernelBench are only needed here, never to build or test.

    python3 -m venv build/golden-venv && build/golden-venv/bin/pip install torch numpy
    git clone https://github.com/ScalingIntelligence/KernelBench build/KernelBench
    build/golden-venv/bin/python tests/golden/make_fixtures.py --kernelgate build/cpu/bin/kernelgate \\
        --kernelbench build/KernelBench

A new KernelBench suite needs no edit here: rerun the script.
"""
import argparse
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import torch

from kernelbench_modules import generate, kernelbench_suites, problem_folder, rel_l2, run_float64, run_kernelbench
from torch_ops import run_forward

HERE = pathlib.Path(__file__).resolve().parent
SUITES = HERE.parent.parent / "suites"

# Non-default stride, padding, output_padding, groups, dilation and kernel
# sizes, at small shapes: (case name, workload, axes, seed). Axes not named
# keep their KernelBench defaults.
CASES = [
    ("l1_071_basic", "l1_071_conv_transposed_2d",
     "batch_size=2,in_channels=4,out_channels=6,height_in=5,width_in=7", 0),
    ("l1_071_stride2_pad1_outpad1_groups2", "l1_071_conv_transposed_2d",
     "batch_size=1,in_channels=4,out_channels=6,height_in=5,width_in=6,stride=2,padding=1,"
     "output_padding=1,groups=2", 1),
    ("l1_071_k4_stride3_pad2_outpad2", "l1_071_conv_transposed_2d",
     "batch_size=1,in_channels=3,out_channels=5,kernel_size=4,height_in=4,width_in=5,stride=3,"
     "padding=2,output_padding=2", 2),
    ("l1_071_k1_stride2_groups4", "l1_071_conv_transposed_2d",
     "batch_size=1,in_channels=4,out_channels=8,kernel_size=1,height_in=3,width_in=4,stride=2,"
     "groups=4", 3),
    ("l1_086_basic", "l1_086_conv_depthwise_separable_2d",
     "batch_size=2,in_channels=4,out_channels=6,height=6,width=7", 0),
    ("l1_086_stride2_pad2_dilation2", "l1_086_conv_depthwise_separable_2d",
     "batch_size=1,in_channels=3,out_channels=5,height=9,width=8,stride=2,padding=2,dilation=2", 1),
    ("l1_086_k5_stride3_pad0", "l1_086_conv_depthwise_separable_2d",
     "batch_size=1,in_channels=2,out_channels=3,kernel_size=5,height=11,width=10,stride=3,padding=0", 2),
    ("l2_078_basic", "l2_078_conv_transpose3d_max_max_sum",
     "batch_size=2,in_channels=2,out_channels=3,depth=7,height=8,width=9", 0),
    ("l2_078_k3_stride1_pad0", "l2_078_conv_transpose3d_max_max_sum",
     "batch_size=1,in_channels=2,out_channels=3,depth=6,height=7,width=11,kernel_size=3,stride=1,"
     "padding=0", 1),
    ("l2_078_k4_stride3_pad1", "l2_078_conv_transpose3d_max_max_sum",
     "batch_size=1,in_channels=3,out_channels=2,depth=4,height=3,width=5,kernel_size=4,stride=3,"
     "padding=1", 2),
]


def all_cases(suites):
    """The cases above, and one at the ci preset for each suite they leave
    out (the first three workloads' ci presets are large beside their cases
    above: 3 MB of fixtures more)."""
    listed = {workload for _, workload, _, _ in CASES}
    return CASES + [(f"{workload[:6]}_ci", workload, "preset:ci", 0) for workload in suites if workload not in listed]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernelgate", required=True, help="path of the kernelgate binary")
    parser.add_argument("--kernelbench", required=True, help="a KernelBench checkout (its KernelBench/ folder "
                        "holds level1/, level2/, ...)")
    parser.add_argument("--out", default=str(HERE / "fixtures"), help="fixture folder")
    args = parser.parse_args()
    problems = problem_folder(args.kernelbench)

    suites = kernelbench_suites(SUITES)
    cases = all_cases(suites)
    out = pathlib.Path(args.out)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    manifest = {"format": "kernelgate-golden/1",
                "generator": "tests/golden/make_fixtures.py",
                "torch": torch.__version__,
                "cases": []}
    worst = 0.0
    for name, workload, axes, seed in cases:
        suite = suites[workload]
        problem_file = problems / suite["origin"]["file"]
        if not problem_file.is_file():
            sys.exit(f"{workload}: no problem file {problem_file}")
        choice = ["--preset", axes.removeprefix("preset:")] if axes.startswith("preset:") else ["--axes", axes]
        with tempfile.TemporaryDirectory() as dump:
            subprocess.run([args.kernelgate, "reference", workload, "--suites", str(SUITES), *choice,
                            "--seed", str(seed), "--dump", dump], check=True,
                           stdout=subprocess.DEVNULL)
            dumped = json.loads((pathlib.Path(dump) / "manifest.json").read_text())
            tensors, ours = {}, None
            for entry in dumped["tensors"]:
                array = np.load(pathlib.Path(dump) / entry["file"])
                if entry["role"] == "output":
                    ours = array
                    output_name = entry["name"]
                else:
                    # The dump must be what docs/inputs.md says.
                    expected = generate(workload, dumped["axes"], dumped["input_seed"], entry["name"],
                                        entry["shape"], entry)
                    if not np.array_equal(array, expected):
                        sys.exit(f"{name}: {entry['name']} differs from the documented generator")
                    tensors[entry["name"]] = array
            want = run_kernelbench(problem_file, suite, dumped["axes"], tensors)
            others = {"the suite's forward pass in torch": run_forward(suite, dumped["axes"], tensors)}
            hand = run_float64(workload, dumped["axes"], tensors)
            if hand is not None:
                others["the hand-written module"] = hand
            for what, got in others.items():
                if got.shape != want.shape or rel_l2(got, want) > 1e-12:
                    sys.exit(f"{name}: {what} disagrees with KernelBench's module")
            error = rel_l2(ours, want)
            worst = max(worst, error)
            print(f"{name:44s} {str(want.shape):22s} rel_l2(kernelgate, torch) = {error:.2e}")
            if error > 1e-9:
                sys.exit(f"{name}: kernelgate's reference disagrees with torch")
            case_dir = out / name
            case_dir.mkdir()
            files = {}
            for tensor_name, array in tensors.items():
                np.save(case_dir / f"{tensor_name}.npy", array)
                files[tensor_name] = f"{name}/{tensor_name}.npy"
            np.save(case_dir / f"{output_name}.npy", want)
            manifest["cases"].append({
                "name": name, "workload": workload, "axes": dumped["axes"],
                "seed": dumped["input_seed"],  # the generator's seed, as golden_test reads it
                "identity": dumped["identity"], "inputs": files,
                "output": {"name": output_name, "file": f"{name}/{output_name}.npy"},
            })
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"{len(cases)} cases written to {out}; worst rel_l2 {worst:.2e}")


if __name__ == "__main__":
    main()
