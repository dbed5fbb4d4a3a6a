#!/usr/bin/env bash
# check_cli_reference.sh KERNELGATE (from the source root): docs/cli.md must
# be what ci/cli-reference.sh makes from this binary's --help.
set -euo pipefail
made=$(mktemp)
trap 'rm -f "$made"' EXIT
ci/cli-reference.sh "$1" > "$made"
if ! diff -u docs/cli.md "$made"; then
  echo "docs/cli.md is stale: run ci/cli-reference.sh build/cpu/bin/kernelgate > docs/cli.md" >&2
  exit 1
fi
echo "docs/cli.md is the binary's --help"
