#!/usr/bin/env python3
"""Times the KernelBench modules themselves, in PyTorch eager and with
torch.compile (inductor), on this machine's GPU, with the kernelbench protocol
(3 warm-ups, 100 trials, CUDA events, mean), and writes them as `measured`
records `torch_eager` and `torch_compile_inductor`.

With --reports DIR the records are also merged into the workload reports
(<workload>.<hardware>.json) that `kernelgate run` wrote there, as candidates
of kind `source_baseline` carrying a publishable `record`, so the source
baseline of every workload is measured on the same card, in the same run, and
`kernelgate publish` stores it with the rest. ci/device-check.sh calls this
when torch is installed; torch is never a dependency of the build or tests.
docs/gpu-runner.md describes the protocol and the record format.
"""
import argparse
import datetime
import json
import math
import os
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "golden"))

IMPLEMENTATIONS = {"eager": "torch_eager", "compile": "torch_compile_inductor"}


def suite_axes(suite):
    return {name: int(spec["default"]) for name, spec in suite["axes"].items()}


def input_shape(suite, axes):
    for tensor in suite["tensors"]:
        if tensor["name"] == "x":
            # Shapes are axis names or integer expressions over them.
            return [int(eval(str(e).replace("/", "//"), {"__builtins__": {}}, dict(axes))) for e in tensor["shape"]]
    raise SystemExit(f"{suite['id']}: no input tensor 'x'")


def statistics_of(samples_ms, warmups):
    ordered = sorted(samples_ms)
    mean = statistics.fmean(ordered)
    std = statistics.stdev(ordered) if len(ordered) > 1 else 0.0
    return {
        "protocol": "kernelbench",
        "clock": "cuda_event",
        "warmups": warmups,
        "n": len(ordered),
        "mean_ms": mean,
        "std_ms": std,
        "min_ms": ordered[0],
        "median_ms": statistics.median(ordered),
        "max_ms": ordered[-1],
        "cv": std / mean if mean > 0 else 0.0,
    }


def time_module(torch, run, x, warmups, trials, flush_buffer):
    """KernelBench's protocol with the harness's L2 flush outside the timed region."""
    with torch.no_grad():
        for _ in range(warmups):
            run(x)
        torch.cuda.synchronize()
        samples = []
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        for _ in range(trials):
            if flush_buffer is not None:
                flush_buffer.zero_()
            start.record()
            run(x)
            stop.record()
            torch.cuda.synchronize()
            samples.append(start.elapsed_time(stop))
    return statistics_of(samples, warmups)


def git_revision():
    try:
        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def find_report(reports_dir, workload):
    """The full-size GPU report of the workload, if `kernelgate run` wrote one."""
    if reports_dir is None:
        return None, None
    for path in sorted(pathlib.Path(reports_dir).glob(f"{workload}.*.json")):
        try:
            report = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        if report.get("hardware") not in (None, "cpu") and report.get("workload", {}).get("id") == workload:
            return path, report
    return None, None


def candidate_entry(implementation, latency, report, environment, notes, observed):
    eager = next((c for c in report.get("candidates", []) if c.get("id") == "cudnn_eager" and c.get("latency")), None)
    ratio = latency["mean_ms"] / eager["latency"]["mean_ms"] if eager and eager["latency"].get("mean_ms") else None
    workload = report.get("workload", {})
    record = {
        "implementation": implementation,
        "kind": "source_baseline",
        "precision": "tf32",
        "trust": "measured",
        "latency": latency,
        "ratio_to_eager": ratio,
        "source": "ci/time_torch_baselines.py: the KernelBench module timed in the same device check",
        "observed": observed,
        "environment": environment,
        "workload_identity": workload.get("identity", ""),
        "preset": workload.get("preset", ""),
        "axes": workload.get("axes", {}),
        "git_revision": git_revision(),
        "notes": notes,
    }
    return {
        "id": implementation,
        "precision": "tf32",
        "kind": "source_baseline",
        "outcome": "new",
        "message": "timed by ci/time_torch_baselines.py; not checked by the harness",
        "checks": [{"name": "latency", "outcome": "new", "message": "", "rule": ""}],
        "latency": latency,
        "gate": None,
        "record": record,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suites", default=str(ROOT / "suites" / "kernelbench"))
    parser.add_argument("--reports", help="merge into the workload reports in this folder")
    parser.add_argument("--out", required=True, help="write every record here (JSON)")
    parser.add_argument("--workloads", nargs="*", help="default: every suite file")
    parser.add_argument("--modes", default="eager,compile", help="eager, compile or both (comma-separated)")
    parser.add_argument("--warmups", type=int, default=3)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--no-flush", action="store_true", help="do not flush the L2 before each trial")
    parser.add_argument("--budget-s", type=float, default=240.0,
                        help="stop starting new measurements after this many seconds")
    args = parser.parse_args()

    import torch
    import kernelbench_modules

    if not torch.cuda.is_available():
        print("time_torch_baselines: torch sees no GPU; nothing timed", file=sys.stderr)
        return 0
    device = torch.device("cuda")
    properties = torch.cuda.get_device_properties(device)
    torch.manual_seed(0)
    # PyTorch's defaults, spelled out because the records claim them.
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.allow_tf32 = True
    flush_buffer = None
    if not args.no_flush:
        l2_bytes = getattr(properties, "L2_cache_size", 50 << 20)
        flush_buffer = torch.empty(max(2 * l2_bytes, 64 << 20) // 4, dtype=torch.float32, device=device)

    notes = (f"torch {torch.__version__}, CUDA {torch.version.cuda}, cuDNN {torch.backends.cudnn.version()}, "
             f"cudnn.benchmark=False, cudnn.allow_tf32=True, matmul.allow_tf32={torch.backends.cuda.matmul.allow_tf32}, "
             f"inputs torch.rand, L2 flushed before each trial: {not args.no_flush}")
    observed = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    started = time.monotonic()
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    for mode in modes:
        if mode not in IMPLEMENTATIONS:
            raise SystemExit(f"unknown mode '{mode}' (known: eager, compile)")

    suites = sorted(pathlib.Path(args.suites).glob("*.json"))
    all_records = []
    for suite_path in suites:
        suite = json.loads(suite_path.read_text())
        workload = suite["id"]
        if args.workloads and workload not in args.workloads:
            continue
        report_path, report = find_report(args.reports, workload)
        axes = {k: int(v) for k, v in report["workload"]["axes"].items()} if report else suite_axes(suite)
        module, _ = kernelbench_modules.build(workload, axes)
        module = module.to(device).eval()
        x = torch.rand(*input_shape(suite, axes), device=device)
        environment = dict(report.get("environment", {})) if report else {"gpu": properties.name}
        environment.update({"torch": torch.__version__, "torch_cuda": torch.version.cuda,
                            "torch_cudnn": torch.backends.cudnn.version()})
        entries = []
        for mode in modes:
            if time.monotonic() - started > args.budget_s:
                print(f"time_torch_baselines: budget of {args.budget_s:.0f} s spent, {workload} {mode} not timed",
                      file=sys.stderr)
                continue
            run = module if mode == "eager" else torch.compile(module)
            latency = time_module(torch, run, x, args.warmups, args.trials, flush_buffer)
            implementation = IMPLEMENTATIONS[mode]
            print(f"{workload:40s} {implementation:24s} {latency['mean_ms']:10.4f} ms "
                  f"(std {latency['std_ms']:.4f}, n {latency['n']})", flush=True)
            entries.append(candidate_entry(implementation, latency, report or {}, environment, notes, observed))
        all_records.extend({"workload": workload, **entry["record"]} for entry in entries)
        if report_path is not None and entries:
            names = {entry["id"] for entry in entries}
            report["candidates"] = [c for c in report["candidates"] if c.get("id") not in names] + entries
            temporary = report_path.with_suffix(".json.tmp")
            temporary.write_text(json.dumps(report, indent=2) + "\n")
            os.replace(temporary, report_path)  # atomic: a reader never sees half a report
        del module, x
        torch.cuda.empty_cache()

    pathlib.Path(args.out).write_text(json.dumps({"records": all_records}, indent=2) + "\n")
    return 0 if all(math.isfinite(r["latency"]["mean_ms"]) for r in all_records) else 1


if __name__ == "__main__":
    sys.exit(main())
