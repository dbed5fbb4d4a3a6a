#!/usr/bin/env python3
"""Asserts two rules over GitHub workflow files; exits 1 naming each breach.

1. Every `uses:` of another repository is pinned to a full commit SHA, with
   the version it stands for in a comment (`owner/repo@<40 hex> # v1.2.3`): a
   tag can be moved to other code, a SHA cannot.
2. In a workflow that pull requests trigger, every job on a self-hosted runner
   carries the fork guard as its `if`, word for word (GUARD): code from a fork
   runs on those long-lived machines only in the run a maintainer's
   `gpu-approved` label starts. A reusable workflow (`workflow_call`) counts
   as one, since its caller's pull request is its event. The guard may be
   and-ed with one more condition, `(GUARD) && (...)`, which can only narrow
   it. A `pull_request_target` workflow checks out nothing.

usage: check_pins_and_guards.py WORKFLOW.yml...
"""
import re
import sys

from ruamel.yaml import YAML

GUARD = ("github.event_name != 'pull_request' || "
         "(github.event.action != 'labeled' && github.event.pull_request.head.repo.full_name == github.repository) || "
         "(github.event.action == 'labeled' && github.event.label.name == 'gpu-approved')")

PINNED = re.compile(r"^\s*-?\s*uses:\s*[\w.-]+/[\w./-]+@[0-9a-f]{40}\s+#\s*v\d[\w.-]*\s*$")
USES = re.compile(r"^\s*-?\s*uses:\s*(\S+)")


def normalized(text):
    return " ".join(str(text).split())


def guarded(condition):
    text = normalized(condition)
    if text == GUARD:
        return True
    prefix = f"({GUARD}) && "
    return text.startswith(prefix) and one_group(text[len(prefix):])


def one_group(text):
    """Whether text is one parenthesized group, so `&&` binds all of it:
    `(a) || (b)` is two groups and would widen the guard."""
    if not (text.startswith("(") and text.endswith(")")):
        return False
    depth = 0
    for index, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and index != len(text) - 1:
            return False
    return depth == 0


def self_hosted(runs_on):
    if isinstance(runs_on, dict):
        return "group" in runs_on or self_hosted(runs_on.get("labels", []))
    labels = runs_on if isinstance(runs_on, list) else [runs_on]
    return any(str(label).strip().lower() == "self-hosted" for label in labels)


def check(path):
    problems = []
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    for number, line in enumerate(text.splitlines(), 1):
        match = USES.match(line)
        if match and not match.group(1).startswith("./") and not PINNED.match(line):
            problems.append(f"{path}:{number}: '{match.group(1)}' is not pinned to a commit SHA with its version "
                            "in a comment")
    workflow = YAML(typ="safe").load(text) or {}
    # YAML 1.1 reads the key `on` as true.
    triggers = workflow.get("on", workflow.get(True, {}))
    if isinstance(triggers, (str, list)):
        triggers = {name: None for name in ([triggers] if isinstance(triggers, str) else triggers)}
    for name, job in (workflow.get("jobs") or {}).items():
        reached_by_pull_requests = "pull_request" in triggers or "workflow_call" in triggers
        if reached_by_pull_requests and self_hosted(job.get("runs-on", "")):
            if not guarded(job.get("if", "")):
                problems.append(f"{path}: job '{name}' runs on a self-hosted runner for pull requests without "
                                "the fork guard as its if")
        if "pull_request_target" in triggers:
            for step in job.get("steps") or []:
                if str(step.get("uses", "")).startswith("actions/checkout"):
                    problems.append(f"{path}: job '{name}' checks out code under pull_request_target")
    return problems


def main(paths):
    problems = [problem for path in paths for problem in check(path)]
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"{len(paths)} workflow(s): every action pinned, every self-hosted job guarded")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
