#!/usr/bin/env bash
# A run killed from outside (CI's own timeout sends SIGTERM; a person presses
# Ctrl-C) leaves nothing behind: the candidate's child and everything it
# started are killed and its temporary folder is removed, and the run dies of
# the signal. A SIGKILL of the run cannot be caught: then the child dies with
# it (PR_SET_PDEATHSIG), and only the temporary folder stays.
# usage: check_termination.sh <kernelgate-adversarial> <scratch folder> <suites folder>
set -euo pipefail
kernelgate=$1
work=$2
suites=$3
rm -rf "$work"
mkdir -p "$work/tmp" "$work/baselines"

# Children of a run in the background, named by their scratch folder (the
# child's argument) under our private TMPDIR.
children() { pgrep -f -- "__kg-candidate-child $work/tmp/" || true; }

start_run() {
  TMPDIR="$work/tmp" "$kernelgate" run --workload l1_086_conv_depthwise_separable_2d --suites "$suites" --device cpu \
    --preset ci --axes batch_size=1,in_channels=4,out_channels=8 --candidates loops_forever \
    --timeout 120 --protocol none --orders forward --baselines "$work/baselines" \
    --report-dir "$work/reports" --quiet &
  run_pid=$!
  for _ in $(seq 100); do
    [ -n "$(children)" ] && return 0
    sleep 0.1
  done
  echo "FAIL: the run started no child within 10 s" >&2
  exit 1
}

failed=0
for signal in TERM INT; do
  start_run
  kill -s "$signal" "$run_pid"
  status=0
  wait "$run_pid" || status=$?
  sleep 0.2
  if [ "$status" -lt 128 ]; then
    echo "FAIL: SIG$signal: the run exited with $status, not of the signal" >&2
    failed=1
  fi
  if [ -n "$(children)" ]; then
    echo "FAIL: SIG$signal: a child is still running: $(children)" >&2
    failed=1
  fi
  if [ -n "$(ls -A "$work/tmp")" ]; then
    echo "FAIL: SIG$signal: left in the temporary folder: $(ls -A "$work/tmp")" >&2
    failed=1
  fi
done

start_run
kill -s KILL "$run_pid"
wait "$run_pid" || true
for _ in $(seq 50); do
  [ -z "$(children)" ] && break
  sleep 0.1
done
if [ -n "$(children)" ]; then
  echo "FAIL: SIGKILL: the child outlived the run: $(children)" >&2
  pkill -KILL -f -- "__kg-candidate-child $work/tmp/" || true
  failed=1
fi
rm -rf "$work/tmp"

[ "$failed" -eq 0 ] && echo "termination: nothing left behind after SIGTERM, SIGINT and SIGKILL"
exit "$failed"
