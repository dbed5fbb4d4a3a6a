# shellcheck shell=bash
# ci/lib/steps.sh: the step runner of ci/device-check.sh, sourced. One budget
# for the whole run: every step gets at most what is left of it, and each
# step's line (name, result, seconds) is appended to the summary file as soon
# as the step ends, so a run cut short, or killed, still leaves a readable
# summary. Results: `ok`, `FAILED (<status>)`, `stopped at budget`,
# `not run (<why>)`, `skipped (<why>)`; only the last two are written by the
# caller, through step_not_run and step_skipped.
#
#   steps_init SUMMARY_FILE BUDGET_SECONDS
#   step NAME COMMAND...        a shell function must be exported (export -f)
#   step_not_run NAME REASON    "not run (budget)" once the budget is spent
#   step_skipped NAME REASON    an optional step that does not apply here
#   steps_left                  whole seconds left of the budget
#   steps_last_result           the result of the step recorded last
#   steps_finish                the summary's last line: the time taken
#   steps_table                 the steps, one per line, for the log
#   steps_all_ok                true when every step passed or was skipped

# Milliseconds since the epoch, from bash's own clock (the decimal point is
# the locale's, so every non-digit is dropped).
steps_now_ms() {
  local micros=${EPOCHREALTIME//[!0-9]/}
  echo $((micros / 1000))
}

steps_init() {
  steps_summary=$1
  steps_budget_s=$2
  steps_deadline_ms=$(($(steps_now_ms) + steps_budget_s * 1000))
  step_names=() step_results=() step_seconds=()
  printf '# %-20s %-32s %s (budget %s s)\n' step result seconds "$steps_budget_s" > "$steps_summary"
}

steps_left_ms() {
  echo $((steps_deadline_ms - $(steps_now_ms)))
}

steps_left() {
  local left_ms
  left_ms=$(steps_left_ms)
  echo $((left_ms > 0 ? left_ms / 1000 : 0))
}

# 1234 -> 1.234: timeout(1) takes decimal seconds.
steps_ms_as_seconds() {
  printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000))
}

# 1234 -> 1.2: the seconds of the summary.
steps_ms_as_tenths() {
  printf '%d.%d' $(($1 / 1000)) $(($1 % 1000 / 100))
}

# steps_record NAME RESULT MILLISECONDS: remembers the step and appends its
# line to the summary at once.
steps_record() {
  local seconds
  seconds=$(steps_ms_as_tenths "$3")
  step_names+=("$1")
  step_results+=("$2")
  step_seconds+=("$seconds")
  printf '%-22s %-32s %6s\n' "$1" "$2" "$seconds" >> "$steps_summary"
}

# step NAME COMMAND...: runs COMMAND with what is left of the budget as its
# limit, in a process group of its own so that nothing it started outlives the
# limit, and records the result. Returns COMMAND's status (125 when the budget
# was already spent), never aborts the caller.
step() {
  local name=$1
  shift
  local left_ms
  left_ms=$(steps_left_ms)
  if [ "$left_ms" -le 0 ]; then
    steps_record "$name" "not run (budget)" 0
    return 125
  fi
  echo
  echo "== $name: $*"
  local begin_ms status elapsed_ms
  begin_ms=$(steps_now_ms)
  timeout --kill-after=10 "$(steps_ms_as_seconds "$left_ms")" bash -c '"$@"' "$name" "$@"
  status=$?
  elapsed_ms=$(($(steps_now_ms) - begin_ms))
  steps_record "$name" "$(steps_result "$status" "$elapsed_ms" "$left_ms")" "$elapsed_ms"
  return $status
}

# steps_result STATUS ELAPSED_MS ALLOWED_MS: timeout(1) exits 124 (137 after
# the KILL) when it stopped the command; a command that exits 124 itself
# well inside its limit is an ordinary failure.
steps_result() {
  if [ "$1" -eq 0 ]; then
    echo ok
  elif { [ "$1" -eq 124 ] || [ "$1" -eq 137 ]; } && [ "$2" -ge "$3" ]; then
    echo "stopped at budget"
  else
    echo "FAILED ($1)"
  fi
}

step_not_run() {
  if [ "$(steps_left_ms)" -le 0 ]; then
    steps_record "$1" "not run (budget)" 0
  else
    steps_record "$1" "not run ($2)" 0
  fi
}

step_skipped() {
  steps_record "$1" "skipped ($2)" 0
}

steps_last_result() {
  local count=${#step_results[@]}
  if [ "$count" -gt 0 ]; then echo "${step_results[count - 1]}"; fi
}

# A summary without this line is from a run that was killed.
steps_finish() {
  local spent_ms=$((steps_budget_s * 1000 - $(steps_left_ms)))
  echo "# finished after $(steps_ms_as_tenths "$spent_ms") s of the $steps_budget_s s budget" >> "$steps_summary"
}

steps_table() {
  local i
  for i in "${!step_names[@]}"; do
    printf '  %-20s %-32s %6ss\n' "${step_names[$i]}" "${step_results[$i]}" "${step_seconds[$i]}"
  done
}

steps_all_ok() {
  local result
  for result in "${step_results[@]}"; do
    case "$result" in
      ok | skipped*) ;;
      *) return 1 ;;
    esac
  done
}
