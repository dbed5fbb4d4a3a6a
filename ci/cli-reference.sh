#!/usr/bin/env bash
# ci/cli-reference.sh KERNELGATE: the reference of the CLI's commands and
# options, docs/cli.md, made from the binary's own --help so that it cannot
# drift from the code. Prints the page; to refresh it:
#   ci/cli-reference.sh build/cpu/bin/kernelgate > docs/cli.md
# The test docs.cli_reference_current fails while docs/cli.md differs.
set -euo pipefail
kernelgate=${1:?usage: ci/cli-reference.sh KERNELGATE_BINARY}
[ -x "$kernelgate" ] || { echo "ci/cli-reference.sh: $kernelgate is not an executable" >&2; exit 2; }

# The usage lines name the binary as it was called: named kernelgate here.
help_of() { "$kernelgate" "$@" --help | sed -E "s#^Usage: [^ ]*kernelgate#Usage: kernelgate#"; }

cat <<'HEADER'
# The kernelgate command line

Every command and option, as `kernelgate <command> --help` prints them.
Made by `ci/cli-reference.sh build/cpu/bin/kernelgate > docs/cli.md`; the
test `docs.cli_reference_current` fails while this page differs from the
binary's help, so edit the option's text in `harness/cli/`, not here.
Exit codes: 0 passed, 1 a gate or check failed (or `lint` found something),
2 bad input (one line on stderr naming it), 3 an internal error, 77 skipped
(no GPU for a GPU run; CTest's skip code).

```
HEADER
help_of
echo '```'
# The subcommands, in the order --help lists them.
mapfile -t commands < <(help_of | sed -n '/^Subcommands:/,$p' | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
for command in "${commands[@]}"; do
  printf '\n## kernelgate %s\n\n```\n' "$command"
  help_of "$command"
  echo '```'
done
