#!/usr/bin/env python3
"""check_model_floor.py: no modelled time is under its floor (docs/roofline.md,
"Floors"), on every GPU key, for every counted candidate.

  check_model_floor.py reports REPORTS_DIR WORKLOAD...
      the ci preset: the counted cpu reports the workload tests wrote;
  check_model_floor.py model KERNELGATE SUITES_DIR WORKLOAD...
      KernelBench's full sizes: `kernelgate model` of each workload (minutes).

The floor is a lower bound for any implementation; a model under it would
say the floor is not one. Exits 1 naming each time under its floor, or a
workload with nothing counted.
"""
import json
import subprocess
import sys

from cpu_reports import cpu_report, finish

KEYS = "h100-sxm,h100-pcie,h200"


def candidates_of(mode, args, workload):
    if mode == "reports":
        return [(c["id"], (c.get("model") or {}).get("hardware") or {})
                for c in cpu_report(args[0], workload)["candidates"]]
    kernelgate, suites = args
    out = subprocess.run([kernelgate, "model", workload, "--suites", suites, "--hardware", KEYS, "--json"],
                         check=True, capture_output=True, text=True).stdout
    return [(c["id"], c.get("hardware") or {}) for c in json.loads(out)["candidates"]]


def main():
    mode = sys.argv[1]
    fixed = 1 if mode == "reports" else 2
    args, workloads = sys.argv[2:2 + fixed], sys.argv[2 + fixed:]
    problems, checked = [], 0
    for workload in workloads:
        try:
            candidates = candidates_of(mode, args, workload)
        except (RuntimeError, subprocess.CalledProcessError) as error:
            problems.append(f"{workload}: {error}")
            continue
        counted = 0
        for candidate, keys in candidates:
            for key, model in keys.items():
                if "not_modelled" in model:  # wgmma on a GPU without it: no time to hold to the floor
                    continue
                counted += 1
                if model["floor_ms"] is None or model["time_ms"] < model["floor_ms"]:
                    problems.append(f"{workload}/{candidate} on {key}: modelled {model['time_ms']} ms, "
                                    f"floor {model['floor_ms']} ms")
        if counted == 0:
            problems.append(f"{workload}: no candidate was modelled")
        checked += counted
    return finish(problems, f"{checked} modelled times at or above their floors")


if __name__ == "__main__":
    sys.exit(main())
