#!/usr/bin/env bash
# ci/kernel-resources.sh [FOLDER]: regenerates FOLDER/resources.json, the
# registers, spills and static shared memory ptxas reports for every
# candidate kernel under FOLDER (default kernels/, and then also
# docs/kernels/resources.md), from the gpu build's own compile commands
# (configures the gpu preset when needed; needs nvcc, not a GPU). A folder
# kept elsewhere must be in the gpu build (KERNELGATE_EXTRA_KERNEL_DIRS).
# Run it after changing a candidate's kernels: the gpu build's target
# kg_candidates_resources fails while the table disagrees with that build's
# ptxas reports, and the cpu build's test cli.kernel_resources_of_every_candidate
# while a launched kernel has no entry.
set -euo pipefail
folder=$(realpath "${1:-$(dirname "$0")/../kernels}")
cd "$(dirname "$0")/.."
if [ ! -f build/gpu/compile_commands.json ]; then
  CUDACXX=${CUDACXX:-$(command -v nvcc)} cmake --preset gpu -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >&2
fi
doc=()
[ "$folder" = "$(realpath kernels)" ] && doc=(docs/kernels/resources.md)
python3 ci/kernel_resources.py build/gpu "$(git rev-parse --short HEAD)" "$folder" "${doc[@]}"
echo "wrote $folder/resources.json ${doc[*]}" >&2
