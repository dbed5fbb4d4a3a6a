#!/usr/bin/env bash
# check_shared_launcher.sh LAUNCHER CXX INCLUDE_DIR: cmake/fail_on_unpoisoned_shared.sh,
# the cpu build's compiler launcher for candidates, on three small kernels
# compiled as interpret mode compiles them: a static __shared__ array in a
# plain kernel builds; the same array in a kernel template fails the compile,
# naming the array, and leaves no object behind; a compile error keeps its
# own exit status.
set -uo pipefail
launcher=$1 cxx=$2 include=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
compile() {  # compile WANT_STATUS TEXT_IN_STDERR SOURCE_TEXT
  local want=$1 text=$2 err status
  printf '#include "kernelgate/interpret/qualifiers.hpp"\n%s\n' "$3" > "$work/kernel.cpp"
  rm -f "$work/kernel.o"
  err=$("$launcher" "$cxx" -std=c++20 -O2 -I "$include" -c "$work/kernel.cpp" -o "$work/kernel.o" 2>&1)
  status=$?
  if [ "$status" -ne "$want" ] || ! grep -qF -- "$text" <<< "$err"; then
    echo "FAILED: exit $status (want $want), output:"; echo "$err"; failures=$((failures + 1))
  fi
  if [ "$want" -ne 0 ] && [ -e "$work/kernel.o" ]; then
    echo "FAILED: a refused compile left its object behind"; failures=$((failures + 1))
  fi
}
compile 0 "" '__global__ void plain(int* out) { __shared__ int counter; counter = 1; *out = counter; }
void use(int* out) { plain(out); }'
compile 1 "tile_kernel<8>()::tile" 'template <int N> __global__ void tile_kernel() { __shared__ float tile[N]; tile[0] = 1; }
template void tile_kernel<8>();'
compile 1 "thread-local storage" 'thread_local int kept_between_blocks;
__global__ void keeps(int* out) { *out = ++kept_between_blocks; }'
compile 1 "error" 'this is not C++'
[ "$failures" -eq 0 ] && echo "the launcher refuses static shared memory that is not poisoned, and only that"
exit "$failures"
