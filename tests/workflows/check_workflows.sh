#!/usr/bin/env bash
# check_workflows.sh schema|actionlint|zizmor|shellcheck TOOL FILE...
# ci/install-deps.sh installs every tool (build/tools-venv, Debian packages);
# a missing tool is a failure that says so, never a silent pass.
set -uo pipefail
kind=$1 tool=$2; shift 2
if [ -z "$tool" ] || [ ! -x "$tool" ]; then
  echo "$kind checker not found: run ci/install-deps.sh" >&2; exit 1
fi
case "$kind" in
  schema)
    exec "$tool" --builtin-schema vendor.github-workflows "$@" ;;
  actionlint)
    # actionlint reads .github/actionlint.yaml (the self-hosted runner
    # labels) from the repository of the files it checks.
    exec "$tool" -no-color "$@" ;;
  zizmor)
    # Offline: only the audits that need no GitHub API; a finding at the
    # default severity fails, and each one the workflows keep is ignored in a
    # comment that says why.
    exec "$tool" --offline --no-progress "$@" ;;
  shellcheck)
    exec "$tool" --severity=warning "$@" ;;
  *) echo "unknown check '$kind'" >&2; exit 2 ;;
esac
