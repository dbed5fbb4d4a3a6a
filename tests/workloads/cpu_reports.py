"""The cpu reports the workload tests write, <workload>.cpu.json, as the
checks that run after them (check_fp32_accuracy.py, check_model_floor.py)
read them."""
import json
import pathlib
import sys


def cpu_report(reports, workload):
    """The report of `workload` in the folder `reports`; RuntimeError naming
    the file when the workload test did not write it."""
    path = pathlib.Path(reports) / f"{workload}.cpu.json"
    if not path.exists():
        raise RuntimeError(f"{path}: no report (did the workload test {workload}.cpu run?)")
    return json.loads(path.read_text(encoding="utf-8"))


def finish(problems, summary):
    """Each problem on stderr, the summary on stdout; the exit code."""
    for problem in problems:
        print(problem, file=sys.stderr)
    print(summary)
    return 1 if problems else 0
