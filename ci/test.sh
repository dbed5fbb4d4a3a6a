#!/usr/bin/env bash
# The README's test command: installs dependencies, builds the cpu preset and
# runs its tests; where nvcc is present it also builds the gpu preset (compile
# and link only) and checks its binary holds each architecture's machine
# code, so GPU code that stops compiling fails here too.
set -euo pipefail
cd "$(dirname "$0")/.."

ci/install-deps.sh
cmake --workflow --preset cpu

nvcc_path=$(command -v nvcc || true)
[ -z "$nvcc_path" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc_path=/usr/local/cuda/bin/nvcc
if [ -n "$nvcc_path" ]; then
  echo "== nvcc found ($nvcc_path): building the gpu preset (compile and link only)"
  # The gpu preset's compile commands are the flags the CUDA 12.x header
  # check compiles with; the compile itself is the gpu-check preset's: the
  # same sources, host code at -O0 in unity files (a third less time), since
  # nothing of it runs here. The cuda device's sources compile one by one in
  # the header check; every source does in the gpu preset's own build.
  CUDACXX="$nvcc_path" cmake --preset gpu
  ci/check-cuda-headers.sh
  CUDACXX="$nvcc_path" cmake --preset gpu-check
  cmake --build --preset gpu-check
  # Machine code for every architecture of the build (docs/gpu-runner.md,
  # "Architectures").
  ci/check-architectures.sh build/gpu-check
else
  echo "== no nvcc: gpu preset not built"
fi
