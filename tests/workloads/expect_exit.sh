#!/usr/bin/env bash
# expect_exit.sh CODE TEXT COMMAND...: runs COMMAND and passes only when it
# exits with CODE and its output (stdout and stderr) contains TEXT. CTest's
# skip code cannot be asserted through SKIP_RETURN_CODE (that marks a test
# skipped, not passed).
set -u
want_code=$1 want_text=$2; shift 2
output_file=$(mktemp)
trap 'rm -f "$output_file"' EXIT
"$@" >"$output_file" 2>&1
code=$?
cat "$output_file" >&2
if [ "$code" -ne "$want_code" ]; then
  echo "expected exit code $want_code, got $code" >&2; exit 1
fi
if ! grep -qF -- "$want_text" "$output_file"; then
  echo "expected the output to contain: $want_text" >&2; exit 1
fi
echo "exit $code with '$want_text', as expected"
