#!/usr/bin/env bash
# check_steps.sh STEPS_LIB: the step runner of ci/device-check.sh
# (ci/lib/steps.sh) on steps that sleep, under a budget of 2 seconds:
# - each step's line is in the summary file as soon as the step ends (the
#   steps after it look for it while the run is still going);
# - a step still running when the budget runs out is stopped, with what it
#   started, and reported as "stopped at budget";
# - the steps after it are reported as not run because of the budget;
# - the run as a whole does not pass.
set -uo pipefail
steps_lib=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source-path=SCRIPTDIR/../.. source=ci/lib/steps.sh
source "$steps_lib"

failures=0
fail() {
  echo "FAILED: $*"
  failures=$((failures + 1))
}

# summary_has PATTERN...: every extended regular expression matches a line of
# the summary now.
summary_has() {
  local pattern
  for pattern in "$@"; do
    grep -Eq -- "$pattern" "$steps_summary" || {
      echo "the summary has no line /$pattern/ yet:"
      cat "$steps_summary"
      return 1
    }
  done
}
# sleep_in_child PIDFILE: runs past any budget in a child process, whose
# pid it leaves in PIDFILE.
sleep_in_child() {
  sleep 30 &
  echo $! > "$1"
  wait
}
export -f summary_has sleep_in_child

run_steps() {
  steps_init "$work/summary.txt" 2
  export steps_summary
  step quick sleep 0.2
  step failing bash -c 'sleep 0.2; exit 3'
  step looks_back summary_has '^quick +ok +0\.[0-9]$' '^failing +FAILED \(3\) +0\.[0-9]$'
  step runs_past sleep_in_child "$work/child.pid"
  step after_it summary_has 'never runs'
  step_not_run optional "no such thing"
  steps_table
}

started=$(steps_now_ms)
run_steps > "$work/log" 2>&1
elapsed_ms=$(($(steps_now_ms) - started))
summary=$work/summary.txt

expect_line() {  # expect_line NAME RESULT: the summary line of step NAME
  grep -Eq "^$1 +$2 +[0-9]+\.[0-9]$" "$summary" || fail "no line '$1 $2' in the summary"
}
expect_line quick ok
expect_line failing 'FAILED \(3\)'
expect_line looks_back ok
expect_line runs_past 'stopped at budget'
expect_line after_it 'not run \(budget\)'
expect_line optional 'not run \(budget\)'
[ "$(grep -vc '^#' "$summary")" -eq 6 ] || fail "the summary has other than 6 step lines"
# Stopped at the budget, not at the end of its 30-second sleep.
[ "$elapsed_ms" -lt 4000 ] || fail "the steps took ${elapsed_ms} ms under a 2-second budget"
# Nothing the stopped step started is left running (a zombie waiting for
# its reaper has ended; a moment for the signal to land).
running() {
  local state
  state=$(ps -o stat= -p "$1" 2> /dev/null)
  [ -n "$state" ] && [ "${state:0:1}" != Z ]
}
child=$(cat "$work/child.pid" 2> /dev/null)
if [ -z "$child" ]; then
  fail "the stopped step never started its child process"
else
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    running "$child" || break
    sleep 0.1
  done
  if running "$child"; then
    fail "the stopped step's child process $child is still running"
    kill "$child"
  fi
fi
steps_all_ok && fail "steps_all_ok passed a run with a failed and a stopped step"
steps_init "$work/empty.txt" 1
step_skipped optional "not here"
steps_all_ok || fail "steps_all_ok failed a run whose only step was skipped"

if [ "$failures" -ne 0 ]; then
  echo "summary:"
  cat "$summary"
  echo "log:"
  cat "$work/log"
  exit 1
fi
echo "every step reported as it ended; the step past the 2-second budget was stopped after ${elapsed_ms} ms in all"
