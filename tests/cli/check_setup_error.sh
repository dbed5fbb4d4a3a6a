#!/usr/bin/env bash
# check_setup_error.sh KERNELGATE SUITES WORK [JUNIT_XSD]: a corrupt baseline file, or an
# option value out of range, stops `kernelgate run` before any candidate runs
# (exit 2, the problem named, no progress line), and the run still leaves a
# JUnit file whose one error testcase says why, so CI shows the reason.
# Nothing in the store changes.
set -u
kernelgate=$1 suites=$2 work=$3 xsd=${4:-}
workload=l1_071_conv_transposed_2d
rm -rf "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_setup_error NAME TEXT ARGUMENTS...: the run with ARGUMENTS exits 2
# before any candidate, its output and its JUnit error both contain TEXT.
expect_setup_error() {
  local name=$1 text=$2; shift 2
  local reports="$work/reports-$name"
  "$kernelgate" run --workload "$workload" --suites "$suites" --device cpu --preset ci \
    --report-dir "$reports" "$@" >"$work/$name.out" 2>&1
  local code=$?
  cat "$work/$name.out" >&2
  [ "$code" -eq 2 ] || fail "$name: expected exit code 2, got $code"
  grep -qF -- "$text" "$work/$name.out" || fail "$name: the error does not say: $text"
  if grep -q "^$workload  " "$work/$name.out"; then fail "$name: a candidate ran before the error"; fi
  local junit="$reports/$workload.cpu.junit.xml"
  [ -f "$junit" ] || fail "$name: no JUnit file at $junit"
  grep -q '<error type="setup"' "$junit" || fail "$name: the JUnit file has no setup error"
  grep -qF -- "$text" "$junit" || fail "$name: the JUnit error does not say: $text"
  if [ -n "$xsd" ]; then xmllint --noout --schema "$xsd" "$junit" || fail "$name: the JUnit file is not junit-10"; fi
}

mkdir -p "$work/baselines/$workload" "$work/empty-store"
printf '{"schema_version": 1, "workload": ' > "$work/baselines/$workload/cpu.json"
before=$(sha256sum "$work/baselines/$workload/cpu.json")
expect_setup_error corrupt "$work/baselines/$workload/cpu.json: not valid JSON" --baselines "$work/baselines"
[ "$(sha256sum "$work/baselines/$workload/cpu.json")" = "$before" ] || fail "the baseline file changed"
expect_setup_error tolerance "--latency-tolerance: must be a fraction from 0 to 10, not 'nan'" \
  --baselines "$work/empty-store" --latency-tolerance nan
echo "exit 2 before any candidate, the problem named, a JUnit setup error: as expected"
