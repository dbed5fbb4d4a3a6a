#!/usr/bin/env bash
# Same-job A/B of a pull request on one GPU:
#   ci/gate-ab.sh BASE_REV [ROUNDS]
# builds BASE_REV (the merge base) beside the head build (build/gpu, made by
# ci/gate-gpu.sh), runs the two binaries in turn, base then head, ROUNDS times
# (default 2) on the same GPU, each run writing its --results, and gates on
# `kernelgate compare` of head against base over every round: exit 1 when a
# candidate of head is slower than the same candidate of base beyond the
# tolerance, failed, or stayed inconclusive. Taking turns spreads a drift of
# the machine (clocks, temperature, a neighbour) over both sides instead of
# onto one. The stored baselines still decide staleness, ranks and the page
# (the ctest run of ci/gate-gpu.sh). The table goes to build/ab/ab.md.
#
# KERNELGATE_AB_BASE_BIN=PATH uses an existing base binary instead of
# building BASE_REV, KERNELGATE_AB_HEAD_BIN the head one, and
# KERNELGATE_AB_RUN_ARGS replaces the run's arguments (default: every
# workload at full size on the GPU) and KERNELGATE_AB_COMPARE_ARGS adds to
# compare's; the tests use them to check the rounds and the verdict in
# interpret mode.
set -euo pipefail
cd "$(dirname "$0")/.."
base_rev=${1:?usage: ci/gate-ab.sh BASE_REV [ROUNDS]}
rounds=${2:-2}
case "$rounds" in '' | *[!0-9]* | 0) echo "ci/gate-ab.sh: ROUNDS must be a whole number from 1, not '$rounds'" >&2; exit 2 ;; esac
work=${KERNELGATE_AB_DIR:-build/ab}
head_bin=${KERNELGATE_AB_HEAD_BIN:-build/gpu/bin/kernelgate}
read -r -a run_args <<<"${KERNELGATE_AB_RUN_ARGS:---all --device cuda}"
read -r -a compare_args <<<"${KERNELGATE_AB_COMPARE_ARGS:-}"
[ -x "$head_bin" ] || { echo "ci/gate-ab.sh: $head_bin: no head build (run ci/gate-gpu.sh first)" >&2; exit 2; }
rm -rf "$work/rounds" && mkdir -p "$work/rounds"

# Each side reads its own tree's suites: the base times the workloads as the
# merge base defines them.
base_bin=${KERNELGATE_AB_BASE_BIN:-} base_suites=suites
if [ -z "$base_bin" ]; then
  git rev-parse --verify --quiet "$base_rev^{commit}" >/dev/null ||
    { echo "ci/gate-ab.sh: $base_rev: no such commit here (check out with fetch-depth: 0)" >&2; exit 2; }
  source_dir=$work/base-source
  git worktree remove --force "$source_dir" 2>/dev/null || rm -rf "$source_dir"
  git worktree prune
  git worktree add --detach "$source_dir" "$base_rev"
  (cd "$source_dir" && CUDACXX=${CUDACXX:-$(command -v nvcc)} cmake --preset gpu >/dev/null && cmake --build --preset gpu)
  base_bin=$source_dir/build/gpu/bin/kernelgate base_suites=$source_dir/suites
fi
# A merge base from before --results cannot be compared: say so and leave
# the gate to the stored baselines.
if ! "$base_bin" run --help 2>/dev/null | grep -q -- '--results'; then
  echo "A/B skipped: the merge base $base_rev writes no --results (it predates same-job A/B)" | tee "$work/ab.md"
  exit 0
fi

base_files=() head_files=()
for round in $(seq 1 "$rounds"); do
  for side in base head; do
    bin=$base_bin side_suites=$base_suites
    [ "$side" = head ] && bin=$head_bin side_suites=suites
    file=$work/rounds/$side.$round.json
    echo "== round $round of $rounds: $side"
    # The run's own gate (exit 1) does not matter here, only its samples;
    # a run that could not start (exit 2) ends the A/B.
    code=0
    "$bin" run "${run_args[@]}" --suites "$side_suites" --baselines baselines \
      --report-dir "$work/rounds/$side.$round.reports" --results "$file" || code=$?
    if [ "$code" -ne 0 ] && [ "$code" -ne 1 ]; then
      echo "ci/gate-ab.sh: the $side run of round $round exited $code" >&2
      exit 2
    fi
    if [ "$side" = base ]; then base_files+=(--base "$file"); else head_files+=(--head "$file"); fi
  done
done

code=0
"$head_bin" compare "${base_files[@]}" "${head_files[@]}" "${compare_args[@]}" >"$work/ab.md" 2>"$work/ab.err" ||
  code=$?
cat "$work/ab.md"
if [ "$code" -eq 2 ] && grep -q "an A/B comparison needs both timed the same way" "$work/ab.err"; then
  # The pull request changed the workload itself (its suite, its axes):
  # there is nothing of base to compare with.
  { echo; echo "A/B not judged: $(sed 's/^kernelgate: error: //' "$work/ab.err")"; } | tee -a "$work/ab.md"
  exit 0
fi
cat "$work/ab.err" >&2
exit "$code"
