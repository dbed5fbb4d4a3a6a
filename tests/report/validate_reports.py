#!/usr/bin/env python3
"""Validates kernelgate's JSON files against their schemas: reports, baseline
files and suite files.

--reports DIR     every <workload>.<hardware>.json against docs/report.schema.json
                  (each candidate's record also against the baseline record
                  schema) and every *.junit.xml against the junit-10 XSD (xmllint)
--baselines DIR   every *.json below DIR against docs/baseline.schema.json
--suites DIR      every *.json below DIR against docs/suite.schema.json
--expect-invalid NAME   a baseline or suite file of that name must be rejected
--allow-empty     a report folder with nothing in it passes (GPU tests all skipped)
Exits 1 naming each file that fails; also when a folder holds nothing to check.
"""
import argparse
import json
import pathlib
import subprocess
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("validate_reports: Python's jsonschema is missing (Debian: python3-jsonschema; ci/install-deps.sh installs it)")


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reports", action="append", default=[])
    parser.add_argument("--baselines", action="append", default=[])
    parser.add_argument("--suites", action="append", default=[])
    parser.add_argument("--expect-invalid", action="append", default=[])
    parser.add_argument("--report-schema", required=True)
    parser.add_argument("--baseline-schema", required=True)
    parser.add_argument("--suite-schema", required=True)
    parser.add_argument("--junit-xsd", required=True)
    parser.add_argument("--xmllint", default="xmllint")
    parser.add_argument("--allow-empty", action="store_true", help="a report folder with nothing in it passes")
    args = parser.parse_args()

    report_schema = load(args.report_schema)
    baseline_schema = load(args.baseline_schema)
    suite_schema = load(args.suite_schema)
    for schema in (report_schema, baseline_schema, suite_schema):
        jsonschema.Draft7Validator.check_schema(schema)
    suite_validator = jsonschema.Draft7Validator(suite_schema)
    report_validator = jsonschema.Draft7Validator(report_schema)
    baseline_validator = jsonschema.Draft7Validator(baseline_schema)
    record_validator = jsonschema.Draft7Validator(
        {**baseline_schema["definitions"]["record"], "definitions": baseline_schema["definitions"]})

    problems = []
    checked = 0

    def check(validator, document, name):
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
        for error in errors[:5]:
            path = "/" + "/".join(str(p) for p in error.absolute_path)
            problems.append(f"{name}: {path}: {error.message}")
        return not errors

    for folder in map(pathlib.Path, args.reports):
        reports = sorted(p for p in folder.glob("*.json") if p.name.count(".") == 2)
        xmls = sorted(folder.glob("*.junit.xml"))
        if (not reports or not xmls) and not args.allow_empty:
            problems.append(f"{folder}: no reports to validate")
        for path in reports:
            checked += 1
            report = load(path)
            check(report_validator, report, str(path))
            for i, candidate in enumerate(report.get("candidates", [])):
                if candidate.get("record") is not None:
                    check(record_validator, candidate["record"], f"{path}: /candidates/{i}/record")
        for path in xmls:
            checked += 1
            run = subprocess.run([args.xmllint, "--noout", "--schema", args.junit_xsd, str(path)],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                problems.append(f"{path}: not valid JUnit XML: {run.stderr.strip()[:2000]}")

    def check_files(folders, validator, what):
        for folder in map(pathlib.Path, folders):
            files = sorted(folder.rglob("*.json"))
            if not files:
                problems.append(f"{folder}: no {what} files to validate")
            for path in files:
                nonlocal checked
                checked += 1
                expect_invalid = path.name in args.expect_invalid
                try:
                    document = load(path)
                except json.JSONDecodeError as e:
                    if not expect_invalid:
                        problems.append(f"{path}: not valid JSON: {e}")
                    continue
                before = len(problems)
                valid = check(validator, document, str(path))
                if expect_invalid:
                    del problems[before:]
                    if valid:
                        problems.append(f"{path}: expected the schema to reject it")

    check_files(args.baselines, baseline_validator, "baseline")
    check_files(args.suites, suite_validator, "suite")

    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"validate_reports: {checked} files checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
