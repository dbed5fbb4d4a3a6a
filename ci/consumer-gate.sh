#!/usr/bin/env bash
# What kernelgate-gate.yml runs for a team's project (docs/consumer.md):
#   ci/consumer-gate.sh cpu|GPU_LABEL PROJECT_DIR BASELINES
# Installs the dependencies, builds this kernelgate (the cpu or the gpu
# preset, no tests) and installs it into build/prefix-<preset>, builds the
# project against it in PROJECT_DIR/build/kernelgate-<label> (find_package
# finds the prefix; FetchContent takes this checkout), and runs the project's
# tests of that label: on a GPU label one test per GPU at once, each on a GPU
# of its own, failing rather than skipping when the runner has no such GPU.
set -euo pipefail
kernelgate=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: ci/consumer-gate.sh cpu|GPU_LABEL PROJECT_DIR BASELINES"
label=${1:?$usage} project_arg=${2:?$usage} baselines=${3:?$usage}
"$kernelgate/ci/consumer-layout.sh" "$label" . > /dev/null  # an unknown label stops here, before the project is looked at
[ -f "$project_arg/CMakeLists.txt" ] || { echo "ci/consumer-gate.sh: no CMakeLists.txt in '$project_arg'" >&2; exit 2; }
project=$(cd "$project_arg" && pwd)
[ -d "$project/$baselines" ] || { echo "ci/consumer-gate.sh: no baselines folder '$baselines' in $project" >&2; exit 2; }
layout=$("$kernelgate/ci/consumer-layout.sh" "$label" "$project")
{ read -r preset; read -r prefix; read -r build; read -r reports; } <<< "$layout"

"$kernelgate/ci/install-deps.sh"
(cd "$kernelgate" && cmake --preset "$preset" -DKERNELGATE_BUILD_TESTS=OFF && cmake --build --preset "$preset" &&
  cmake --install "build/$preset" --prefix "$prefix")

configure=(-G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=$prefix"
           "-DFETCHCONTENT_SOURCE_DIR_KERNELGATE=$kernelgate")
if [ "$preset" = gpu ]; then
  # The candidates take the installed kernelgate's architectures (the package's
  # KERNELGATE_CUDA_ARCHITECTURES).
  configure+=(-DKERNELGATE_GPU=ON)
fi
cmake -S "$project" -B "$build" "${configure[@]}"
cmake --build "$build"

mkdir -p "$reports"
if [ "$preset" = cpu ]; then
  ctest --test-dir "$build" -L '^cpu$' -j "$(nproc)" --output-on-failure --output-junit "$reports/ctest.junit.xml"
else
  "$kernelgate/ci/make-resource-spec.sh" "$build/resource-spec.json"
  "$kernelgate/ci/ctest-gpus.sh" "$build/resource-spec.json" "$reports/ctest.junit.xml" \
    --test-dir "$build" -L "^$label\$" --output-on-failure
fi
