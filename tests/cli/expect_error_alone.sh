#!/usr/bin/env bash
# expect_error_alone.sh CODE TEXT COMMAND...: passes only when COMMAND exits
# with CODE, its stderr contains TEXT and it printed nothing on stdout (an
# error found late must not follow half an answer).
set -u
want_code=$1 want_text=$2; shift 2
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
"$@" >"$out" 2>"$err"
code=$?
cat "$out" "$err" >&2
[ "$code" -eq "$want_code" ] || { echo "expected exit code $want_code, got $code" >&2; exit 1; }
grep -qF -- "$want_text" "$err" || { echo "expected stderr to contain: $want_text" >&2; exit 1; }
[ ! -s "$out" ] || { echo "expected nothing on stdout" >&2; exit 1; }
echo "exit $code with '$want_text' and nothing else, as expected"
