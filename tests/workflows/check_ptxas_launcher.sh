#!/usr/bin/env bash
# check_ptxas_launcher.sh LAUNCHER [NVCC SOURCE_ROOT]
# cmake/fail_on_ptxas_notices.sh, the gpu build's compiler launcher for
# candidates, on stand-in compilers: a ptxas notice of wgmma misuse or
# serialization fails the compile, other ptxas output does not, and the
# compiler's own exit status passes through. With NVCC, also on the real
# thing: the deliberate wgmma misuse kernel of the interpret tests, compiled
# for sm_90a, must fail through the launcher.
set -uo pipefail
launcher=$1
nvcc=${2:-}
root=${3:-}
failures=0
expect() {  # expect STATUS TEXT_IN_STDERR -- COMMAND...
  local want=$1 text=$2
  shift 3
  local err status
  err=$("$launcher" "$@" 2>&1 > /dev/null)
  status=$?
  if [ "$status" -ne "$want" ] || ! grep -qF -- "$text" <<< "$err"; then
    echo "FAILED: $* -> exit $status (want $want), stderr:"
    echo "$err"
    failures=$((failures + 1))
  fi
}
expect 1 "(C7515)" -- sh -c 'echo "ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async instructions are serialized" >&2'
expect 1 "(C7520)" -- sh -c 'echo "ptxas warning : (C7520) wgmma pipeline crossing function boundary" >&2'
expect 1 "serializ" -- sh -c 'echo "ptxas info : wgmma.mma_async instructions are serialized due to insufficient registers" >&2'
expect 0 "Used 128 registers" -- sh -c 'echo "ptxas info    : Used 128 registers, 0 bytes spill stores" >&2'
expect 0 "(C7509)" -- sh -c 'echo "ptxas info    : (C7509) outside the range" >&2'
expect 3 "broken" -- sh -c 'echo broken >&2; exit 3'
if [ -n "$nvcc" ]; then
  object=$(mktemp)
  expect 1 "(C7520)" -- "$nvcc" -std=c++20 --expt-relaxed-constexpr -arch=sm_90a -Xptxas=-v \
    -I "$root/tests/interpret" -I "$root/harness/include" -x cu -c "$root/tests/interpret/kernels/wgmma_kernels.cu" \
    -o "$object"
  rm -f "$object"
fi
[ "$failures" -eq 0 ] && echo "the launcher fails on every wgmma notice and only on those"
exit "$failures"
