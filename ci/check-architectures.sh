#!/usr/bin/env bash
# The gpu build's kernelgate binary holds machine code for every architecture
# the build was configured for (CMAKE_CUDA_ARCHITECTURES in its CMake cache):
#   ci/check-architectures.sh BUILD_DIR
# `cuobjdump --list-elf` lists the ELF images of the binary's fat binaries,
# one per kernel source and architecture. cuobjdump comes from NVIDIA's wheel,
# pinned by version and sha256 and installed into the tools venv of
# ci/install-deps.sh once, so every machine checks alike. One line per
# architecture with its count of images; exit 1 when one has none.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: ci/check-architectures.sh BUILD_DIR}
binary=$build/bin/kernelgate
venv=build/tools-venv
for needed in "$build/CMakeCache.txt" "$binary" "$venv/bin/pip"; do
  [ -e "$needed" ] || { echo "check-architectures: $needed is missing" >&2; exit 1; }
done

cuobjdump=$(find "$venv" -path '*/nvidia/cu13/bin/cuobjdump' -type f 2> /dev/null | head -1)
if [ -z "$cuobjdump" ]; then
  pins=$(mktemp)
  trap 'rm -f "$pins"' EXIT
  cat >"$pins" <<'PINNED'
nvidia-cuda-cuobjdump==13.5.37 --hash=sha256:38780fee50863252a0b8926357faa91615ca1c8346490563f33a06100cd73f58
PINNED
  "$venv/bin/pip" install -q --disable-pip-version-check --no-deps --only-binary=:all: --require-hashes -r "$pins"
  cuobjdump=$(find "$venv" -path '*/nvidia/cu13/bin/cuobjdump' -type f | head -1)
fi

architectures=$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$build/CMakeCache.txt")
[ -n "$architectures" ] || { echo "check-architectures: no CMAKE_CUDA_ARCHITECTURES in $build" >&2; exit 1; }
images=$("$cuobjdump" --list-elf "$binary")
status=0
IFS=';' read -r -a wanted <<<"$architectures"
for architecture in "${wanted[@]}"; do
  sm=sm_${architecture%-real}
  count=$(grep -c "\.${sm}\.cubin\$" <<<"$images" || true)
  if [ "$count" -gt 0 ]; then
    echo "$binary: $count images for $sm"
  else
    echo "$binary: no machine code for $sm (CMAKE_CUDA_ARCHITECTURES $architectures)" >&2
    status=1
  fi
done
exit $status
