#!/usr/bin/env bash
# ci/device-deps.sh DIR: downloads into DIR the Debian packages that the gpu
# build needs and a GPU machine does not have, for `ci/device-check.sh OUTDIR
# --deps DIR` on a machine with the CUDA toolkit, cuDNN, CMake, ninja, g++ and
# Python but neither the build's development packages nor a network
# (docs/gpu-runner.md, "Running the device check"). Run it on a machine of
# the same Debian release and architecture where apt-get works (as root or
# through sudo); DIR gets the .deb files, packages.txt (one `name version` a
# line) and release.txt (the release they are for). Nothing is installed.
set -euo pipefail
# shellcheck source=lib/deps.sh disable=SC1091
source "$(dirname "$0")/lib/deps.sh"

if [ $# -ne 1 ]; then
  echo "usage: ci/device-deps.sh DIR" >&2
  exit 2
fi
dir=$1

# What the gpu preset's configure, build and GPU tests use, by where it is asked for:
wanted=(
  nlohmann-json3-dev  # find_package(nlohmann_json), top-level CMakeLists.txt
  libssl-dev          # find_package(OpenSSL): libcrypto for the suites' SHA-256
  libcli11-dev        # find_package(CLI11), find_path(CLI/CLI.hpp)
  libtinyxml2-dev     # find_package(tinyxml2): the JUnit reports
  librandom123-dev    # find_path(Random123/philox.h): the input generator
  libgtest-dev        # find_package(GTest), tests/CMakeLists.txt: every test binary
  libgmock-dev        # GTest::gmock, linked by every unit test
  libxml2-utils       # xmllint: reports.schema.<class> checks the JUnit XML
  python3-jsonschema  # the same test checks the JSON reports against their schemas
)
# What such a machine has: the C and C++ runtime of its compilers, the base
# libraries every Debian system has, and Python. Everything else the packages
# above depend on is downloaded too (their runtime libraries: libssl3,
# libtinyxml2, libxml2 with libicu, Python modules). Boost.Context and Google
# Benchmark are not wanted: only interpret mode (the cpu build) uses Boost, and
# no target links Google Benchmark.
present=(libc6 libgcc-s1 libstdc++6 zlib1g liblzma5 python3)
# Packages must fit in this much, to be carried to the GPU machine with the tree.
limit_bytes=$((40 * 1024 * 1024))

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

declare -A chosen=()
order=()

is_present() {
  local name
  for name in "${present[@]}"; do [ "$1" = "$name" ] && return 0; done
  return 1
}

# dependency_groups PACKAGE: one line per Depends of PACKAGE, its alternatives
# separated by spaces (virtual names without <> and :any).
dependency_groups() {
  apt-cache depends --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances "$1" | awk '
    $1 == "Depends:" || $1 == "|Depends:" {
      name = $2; gsub(/[<>]/, "", name); sub(/:any$/, "", name)
      group = group " " name
      if ($1 == "Depends:") { print group; group = "" }
    }'
}

# choose GROUP...: nothing when one alternative is present or already chosen,
# else the first.
choose() {
  local name
  for name in "$@"; do
    if is_present "$name" || [ -n "${chosen[$name]:-}" ]; then return 0; fi
  done
  echo "$1"
}

# resolve PACKAGE...: fills `order` with them and everything they need that is
# not present, each once, in the order found.
resolve() {
  local queue=("$@") package group choice
  while [ ${#queue[@]} -gt 0 ]; do
    package=${queue[0]}
    queue=("${queue[@]:1}")
    if [ -n "${chosen[$package]:-}" ]; then continue; fi
    chosen[$package]=1
    order+=("$package")
    while read -r group; do
      # shellcheck disable=SC2086  # the alternatives are words
      choice=$(choose $group)
      if [ -n "$choice" ]; then queue+=("$choice"); fi
    done < <(dependency_groups "$package")
  done
}

# The package lists are read before anything is resolved: without them (a
# fresh machine) or without one of the wanted packages, they are updated first.
lists_have_wanted() {
  local package
  for package in "${wanted[@]}"; do
    apt-cache show --no-all-versions "$package" > /dev/null 2>&1 || return 1
  done
}
update_lists() {
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get update -qq
}

lists_have_wanted || update_lists
resolve "${wanted[@]}"

mkdir -p "$dir"
rm -f "$dir"/*.deb "$dir/packages.txt" "$dir/release.txt"
# apt-get download writes into the working directory; a stale list (a version
# the mirror no longer has) gets one update and one more try.
if ! (cd "$dir" && apt-get download -q "${order[@]}"); then
  update_lists
  (cd "$dir" && apt-get download -q "${order[@]}")
fi

deps_manifest "$dir" > "$dir/packages.txt"
deps_release > "$dir/release.txt"

bytes=$(du -sb "$dir" | cut -f1)
echo "packages for $(cat "$dir/release.txt"), in $dir:"
sed 's/^/  /' "$dir/packages.txt"
echo "$(wc -l < "$dir/packages.txt") packages, $((bytes / 1024)) KiB ($(du -sh "$dir" | cut -f1))"
if [ "$bytes" -gt "$limit_bytes" ]; then
  echo "device-deps: $dir is over the $((limit_bytes / 1024 / 1024)) MiB it must fit in" >&2
  exit 1
fi
