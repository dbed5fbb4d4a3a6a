#!/usr/bin/env bash
# check_workflows.sh schema|actionlint TOOL FILE...
# schema: a missing tool is a failure (ci/install-deps.sh installs it).
# actionlint: not packaged for Debian or PyPI in a form that installs offline,
# so a missing actionlint skips (exit 77) and says so.
set -uo pipefail
kind=$1 tool=$2; shift 2
case "$kind" in
  schema)
    if [ -z "$tool" ] || [ ! -x "$tool" ]; then
      echo "check-jsonschema not found: run ci/install-deps.sh" >&2; exit 1
    fi
    exec "$tool" --builtin-schema vendor.github-workflows "$@" ;;
  actionlint)
    if [ -z "$tool" ] || [ ! -x "$tool" ]; then
      echo "actionlint not installed: skipped (docs/github-actions.md)"; exit 77
    fi
    exec "$tool" -no-color "$@" ;;
  *) echo "unknown check '$kind'" >&2; exit 2 ;;
esac
