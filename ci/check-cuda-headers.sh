#!/usr/bin/env bash
# The gpu build's host code against the CUDA 12.x headers the project
# supports (docs/gpu-runner.md, "Supported CUDA toolkits"), compile only, in
# seconds. For CUDA 12.4 and 12.8 the runtime, CUPTI and nvcc host-support
# headers come from NVIDIA's wheels, pinned by version and sha256 and
# installed under build/cuda-headers/ once. For each version, every host
# source of the cuda device (harness/src/device/cuda/*.cpp) must compile
# with the gpu build's own flags (build/gpu/compile_commands.json), the
# wheels' folders in place of the toolkit's and cuDNN's headers still the
# system's; and the CUPTI record test (tests/cuda_headers/cupti_records_test.cpp)
# must build and pass. The record test also runs against the system
# toolkit's headers. One line per check; exit 1 when any fails.
#
# Needs a configured gpu build (cmake --preset gpu) and the tools venv of
# ci/install-deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

compile_commands=build/gpu/compile_commands.json
pip=build/tools-venv/bin/pip
headers_root=build/cuda-headers
rewrite=tests/cuda_headers/device_compile_commands.py
record_test=tests/cuda_headers/cupti_records_test.cpp
versions=(12.4 12.8)

for needed in "$compile_commands" "$pip"; do
  if [ ! -e "$needed" ]; then
    echo "check-cuda-headers: $needed is missing: run ci/install-deps.sh and cmake --preset gpu first" >&2
    exit 1
  fi
done

# The wheels of one CUDA version, each pinned by version and the sha256 of
# its x86_64 wheel. Only their headers are used, so these serve any host.
# The runtime wheel lacks nvcc's crt/ headers, which cuda_runtime_api.h
# includes: they come from the nvcc wheel of the same release.
pinned_wheels() {
  case "$1" in
    12.4)
      cat <<'PINNED'
nvidia-cuda-runtime-cu12==12.4.127 --hash=sha256:64403288fa2136ee8e467cdc9c9427e0434110899d07c779f25b5c068934faa5
nvidia-cuda-cupti-cu12==12.4.127 --hash=sha256:9dec60f5ac126f7bb551c055072b69d85392b13311fcc1bcda2202d172df30fb
nvidia-cuda-nvcc-cu12==12.4.131 --hash=sha256:e4c9a35435c3b0e36c6397c5696334c9ea6650e524736cbd1c5d345ea099bb04
PINNED
      ;;
    12.8)
      cat <<'PINNED'
nvidia-cuda-runtime-cu12==12.8.90 --hash=sha256:adade8dcbd0edf427b7204d480d6066d33902cab2a4707dcfc48a2d0fd44ab90
nvidia-cuda-cupti-cu12==12.8.90 --hash=sha256:ea0cb07ebda26bb9b29ba82cda34849e73c166c18162d3913575b0c9db9a6182
nvidia-cuda-nvcc-cu12==12.8.93 --hash=sha256:2d6dc36fb7cb5ac9c0b8825bc13d193c35487a315664007287d0126531238011
PINNED
      ;;
  esac
}

# Installs one version's wheels unless exactly these pins are installed already.
install_headers() {
  local folder=$headers_root/$1
  if [ -f "$folder/installed.txt" ] && cmp -s "$folder/installed.txt" <(pinned_wheels "$1"); then return; fi
  echo "== installing the CUDA $1 headers into $folder"
  rm -rf "$folder"
  mkdir -p "$folder"
  pinned_wheels "$1" >"$folder/requirements.txt"
  "$pip" install -q --disable-pip-version-check --no-deps --only-binary=:all: --require-hashes \
    --platform manylinux2014_x86_64 --target "$folder/wheels" -r "$folder/requirements.txt"
  # Only the headers are used; the libraries and nvcc's binaries beside them take some 230 MB.
  find "$folder/wheels/nvidia" -mindepth 2 -maxdepth 2 ! -name include -exec rm -rf {} +
  mv "$folder/requirements.txt" "$folder/installed.txt"
}

# The include folders of one version, in search order.
header_folders() {
  local wheels=$headers_root/$1/wheels/nvidia
  echo "$wheels/cuda_runtime/include"
  echo "$wheels/cuda_cupti/include"
  echo "$wheels/cuda_nvcc/include"
  echo "$headers_root/cudnn"
}

# cuDNN's headers stay the system's. Where they share the toolkit's folder
# they are linked into one of their own, so that no other header of the
# system toolkit is seen.
link_cudnn_headers() {
  local toolkit_folder header
  rm -rf "$headers_root/cudnn"
  mkdir -p "$headers_root/cudnn"
  for toolkit_folder in "${toolkit_folders[@]}"; do
    for header in "$toolkit_folder"/cudnn*.h; do
      if [ -e "$header" ]; then ln -sf "$header" "$headers_root/cudnn/"; fi
    done
  done
}

# The checks run in the background, as many at once as there are cores; each
# leaves its line and its output under $logs, printed in order at the end.
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
check_count=0
parallel=$(nproc)

start_check() {
  local label=$1 id=$check_count
  shift
  check_count=$((check_count + 1))
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  (
    if "$@" >"$logs/$id.out" 2>&1; then
      echo "ok    $label" >"$logs/$id.line"
    else
      echo "FAIL  $label" >"$logs/$id.line"
    fi
  ) &
}

# Builds the record test with the given compile command (the gpu build's
# command for stream_audit.cpp, include folders replaced) into FOLDER, and runs it.
build_and_run_record_test() {
  local folder=$1
  shift
  mkdir -p "$folder"
  "$@" -Iharness/src/device/cuda "$record_test" -o "$folder/cupti_records_test"
  "$folder/cupti_records_test"
}

# Starts the checks of one header set: NAME, then its include folders (none:
# the toolkit's own, as the gpu build has them).
start_checks_of() {
  local name=$1 source line record_command=()
  shift
  local words=()
  while IFS= read -r line; do
    IFS=$'\t' read -r -a words <<<"$line"
    source=${words[0]#"$PWD/"}
    if [ "$#" -gt 0 ]; then
      start_check "CUDA $name: $source (compile only)" "${words[@]:1}" -fsyntax-only "${words[0]}"
    fi
    if [ "${source##*/}" = stream_audit.cpp ]; then record_command=("${words[@]:1}"); fi
  done < <(python3 "$rewrite" "$compile_commands" commands "$@")
  if [ "${#record_command[@]}" -eq 0 ]; then
    echo "check-cuda-headers: $compile_commands has no command for stream_audit.cpp" >&2
    exit 1
  fi
  start_check "CUDA $name: $record_test (build and run)" \
    build_and_run_record_test "$headers_root/${name%% *}" "${record_command[@]}"
}

# The gpu build's commands must be those of the sources as they are now: a
# source added since it was configured would go unchecked.
require_current_commands() {
  local listed on_disk
  listed=$(python3 "$rewrite" "$compile_commands" commands | cut -f1 | sed "s|^$PWD/||" | sort)
  on_disk=$(printf '%s\n' harness/src/device/cuda/*.cpp | sort)
  if [ "$listed" != "$on_disk" ]; then
    echo "check-cuda-headers: $compile_commands does not list the sources of harness/src/device/cuda" \
      "as they are now: configure the gpu preset again (cmake --preset gpu)" >&2
    exit 1
  fi
}

# The system toolkit's CUDA version, from its cuda.h (CUDA_VERSION 13000: 13.0).
system_cuda_version() {
  local folder number
  for folder in "${toolkit_folders[@]}"; do
    number=$(sed -n 's/^#define CUDA_VERSION \([0-9]*\).*/\1/p' "$folder/cuda.h" 2>/dev/null || true)
    if [ -n "$number" ]; then
      echo "$((number / 1000)).$((number % 1000 / 10))"
      return
    fi
  done
  echo unknown
}

require_current_commands
for version in "${versions[@]}"; do install_headers "$version"; done
mapfile -t toolkit_folders < <(python3 "$rewrite" "$compile_commands" toolkit-includes)
link_cudnn_headers

for version in "${versions[@]}"; do
  mapfile -t folders < <(header_folders "$version")
  start_checks_of "$version" "${folders[@]}"
done
start_checks_of "$(system_cuda_version) (system)"
wait

failed=0
for ((id = 0; id < check_count; id++)); do
  cat "$logs/$id.line"
  if grep -q '^FAIL' "$logs/$id.line"; then failed=$((failed + 1)); fi
done
for ((id = 0; id < check_count; id++)); do
  if grep -q '^FAIL' "$logs/$id.line"; then
    echo "---- $(cut -c7- "$logs/$id.line")"
    head -n 40 "$logs/$id.out"
  fi
done
if [ "$failed" -gt 0 ]; then
  echo "check-cuda-headers: $failed of $check_count checks failed (${SECONDS}s)"
  exit 1
fi
echo "check-cuda-headers: all $check_count checks passed (${SECONDS}s)"
