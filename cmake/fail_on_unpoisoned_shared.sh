#!/usr/bin/env bash
# The cpu build's compiler launcher for candidate kernels: runs the compile
# command it is given, then fails it when the object holds thread-local
# storage that interpret mode does not poison at the start of each block.
# Static `__shared__` becomes a thread-local variable in the section
# kg_static_shared, which the block runner fills with 0xff bytes before every
# block (docs/interpret-mode.md). GCC drops that section for a static in a
# template or an inline function and gives it a section of its own
# (.tbss.<mangled name>): there it would start at zero and keep the previous
# block's values, and a kernel relying on either would pass here and read
# garbage on a GPU. The only other thread-local storage a kernel may hold is
# the runtime's threadIdx, blockIdx, blockDim and gridDim.
set -uo pipefail
"$@"
status=$?
[ $status -eq 0 ] || exit $status
object=""
previous=""
for arg in "$@"; do
  [ "$previous" = -o ] && object=$arg
  previous=$arg
done
[ -n "$object" ] && [ -f "$object" ] || exit 0
case $object in *.gch) exit 0 ;; esac  # the library's precompiled header, not an object
# Section names whose flags hold T (thread-local), one per line.
# (readelf -SW: [Nr] Name Type Address Off Size ES Flg Lk Inf Al; Flg is
# absent when a section has no flags.)
offenders=$(readelf -SW "$object" | sed -n 's/^ *\[ *[0-9]*\] //p' |
  awk '$7 ~ /^[A-Za-z]+$/ && $7 ~ /T/ {print $1}' |
  grep -vxE 'kg_static_shared|\.(tbss|tdata)\.(threadIdx|blockIdx|blockDim|gridDim)' || true)
if [ -n "$offenders" ]; then
  echo "error: $object: thread-local storage that interpret mode does not poison per block:" >&2
  for section in $offenders; do
    echo "  ${section}: $(echo "${section#.t*.}" | c++filt)" >&2
  done
  echo "  a static __shared__ array in a template or inline function escapes the poisoned section" \
    "(use dynamic shared memory, KG_DYNAMIC_SMEM, or declare it in a plain function);" \
    "a thread_local of the kernel's own is state kept between blocks" >&2
  rm -f "$object"
  exit 1
fi
exit 0
