#!/usr/bin/env python3
"""check_fp32_accuracy.py REPORTS_DIR WORKLOAD...: in the cpu reports the
workload tests wrote (each candidate at the ci preset under both thread
orders), every candidate passed with at least one element compared, and
every one that declares fp32 also meets KernelBench's fp32 rule (allclose at
1e-4) beside the suite's own tolerance: what an FP32-faithful tensor-core
method (3xTF32, the BF16 correction) must show.
Exits 1 naming each candidate that does not, or a workload without a report.
"""
import sys

from cpu_reports import cpu_report, finish


def main():
    reports, workloads = sys.argv[1], sys.argv[2:]
    problems, checked = [], 0
    for workload in workloads:
        try:
            report = cpu_report(reports, workload)
        except RuntimeError as error:
            problems.append(str(error))
            continue
        for candidate in report["candidates"]:
            error = candidate.get("error", {})
            name = f"{workload}/{candidate['id']}"
            if candidate.get("outcome") != "passed" or error.get("checked", 0) <= 0:
                problems.append(f"{name}: {candidate.get('outcome')}, {error.get('checked', 0)} elements compared")
            elif candidate.get("precision") != "fp32":
                continue
            elif not error.get("kernelbench_1e4", False) or error.get("non_finite", False):
                problems.append(f"{name}: outside KernelBench's 1e-4 rule (max_abs {error.get('max_abs')})")
            else:
                checked += 1
    return finish(problems, f"{checked} fp32 candidates within KernelBench's 1e-4 rule")


if __name__ == "__main__":
    sys.exit(main())
