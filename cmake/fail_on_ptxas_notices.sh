#!/usr/bin/env bash
# The gpu build's compiler launcher for candidate kernels: runs the compile
# command it is given and fails it when ptxas reported wgmma misuse it
# silently repaired, or wgmma serialization (notices C7510 to C7520). ptxas
# prints these as information, not warnings: a kernel with one still builds,
# and then "works" by accident or runs with its wgmmas serialized. It also
# keeps ptxas's report beside the object, for the resources check (below).
# The deliberate misuse kernel of tests/interpret/ is not a candidate and is
# not compiled through this launcher (docs/ctest.md).
set -uo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$@" 2> "$log"
status=$?
cat "$log" >&2
# Keep ptxas's report beside the object (the compile's `-o`), headed by the
# source (`-c`): kernelgate_check_kernel_resources() compares the registers it
# gives with the folder's resources.json.
source='' object=''
for ((i = 1; i < $#; ++i)); do
  case "${!i}" in
    -c) j=$((i + 1)); source=${!j} ;;
    -o) j=$((i + 1)); object=${!j} ;;
  esac
done
if [ $status -eq 0 ] && [ -n "$source" ] && [ -n "$object" ]; then
  { echo "source: $source"; cat "$log"; } > "$object.ptxas"
fi
if [ $status -eq 0 ] && grep -qE '\(C75(1[0-9]|20)\)|wgmma[^ ]* .*serializ' "$log"; then
  echo "error: ptxas reports wgmma misuse or serialization in a candidate kernel (notices C7510 to C7520):" >&2
  grep -E '\(C75(1[0-9]|20)\)|wgmma[^ ]* .*serializ' "$log" | sort -u >&2
  exit 1
fi
exit $status
