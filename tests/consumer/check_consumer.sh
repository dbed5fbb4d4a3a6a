#!/usr/bin/env bash
# check_consumer.sh FORM KERNELGATE_BUILD KERNELGATE_SOURCE WORK CMAKE CTEST CXX
# The team project of project/ as a kernel team would build it, against
# kernelgate's cpu build: FORM "package" installs that build into WORK/prefix
# and finds it with find_package(kernelgate); FORM "fetch" takes kernelgate's
# sources with FetchContent (no network: the source tree is the checkout).
# Passes when the project's own CTest case (team_mobile_block.cpu, labelled
# cpu) passes on its candidate as written, and fails naming the outcome
# `incorrect` once the candidate is broken (one input channel left out); in
# the package form also when a missing baselines folder and a suite file
# without an id each stop the configure with a message naming them.
set -euo pipefail
form=$1 build=$2 source=$3 work=$4 cmake=$5 ctest=$6 cxx=$7
here=$(cd "$(dirname "$0")" && pwd)

rm -rf "$work"
mkdir -p "$work"
cp -R "$here/project" "$work/project"
project=$work/project

# Unoptimised, without debug info, as a unity build: what the test proves is
# that the project configures, builds and runs against kernelgate, not how
# fast its build is. The fetch form compiles the whole harness: a quarter
# faster at -O0, and half the compiler time again with each library
# compiled as one unity file (harness/CMakeLists.txt). The project's test
# takes a tenth of a second either way.
options=(-G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 -DCMAKE_UNITY_BUILD=ON
         "-DCMAKE_CXX_COMPILER=$cxx")
case "$form" in
  package)
    "$cmake" --install "$build" --prefix "$work/prefix" > "$work/install.log" 2>&1
    options+=(-DKERNELGATE_FROM=package "-DCMAKE_PREFIX_PATH=$work/prefix")
    ;;
  fetch)
    options+=(-DKERNELGATE_FROM=fetch "-DFETCHCONTENT_SOURCE_DIR_KERNELGATE=$source"
                -DFETCHCONTENT_FULLY_DISCONNECTED=ON)
    ;;
  *)
    echo "check_consumer.sh: FORM must be package or fetch, not '$form'" >&2
    exit 2
    ;;
esac

# Bad input stops the configure with a message naming it (package form only:
# the checks are the functions', the same in both forms).
expect_configure_error() {  # expect_configure_error TEXT: configures $work/bad
  local log=$work/bad-configure.log
  if "$cmake" -S "$work/bad" -B "$work/bad/build" "${options[@]}" > "$log" 2>&1; then
    echo "FAILED: the configure passed on bad input (want: $1)"; exit 1
  fi
  tr -s ' \n' ' ' < "$log" | grep -qF -- "$1" || { echo "FAILED: the configure did not say '$1':"; cat "$log"; exit 1; }
  rm -rf "$work/bad/build"
}
if [ "$form" = package ]; then
  cp -R "$project" "$work/bad"
  rm -rf "$work/bad/baselines"
  expect_configure_error "baselines folder $work/bad/baselines does not exist"
  cp -R "$project/baselines" "$work/bad/baselines"
  echo '{"kind": "kernelgate-suite"}' > "$work/bad/suites/no_id.json"
  expect_configure_error "$work/bad/suites/no_id.json: not a kernelgate suite"
  rm -rf "$work/bad"
fi

"$cmake" -S "$project" -B "$project/build" "${options[@]}" > "$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
"$cmake" --build "$project/build" > "$work/build.log" 2>&1 || { tail -50 "$work/build.log"; exit 1; }

# The project's tests are kernelgate's: one per suite and label, same labels.
listed=$("$ctest" --test-dir "$project/build" -N -L cpu)
if ! grep -q "team_mobile_block\.cpu" <<< "$listed"; then
  echo "FAILED: no team_mobile_block.cpu test labelled cpu in the project:"
  echo "$listed"
  exit 1
fi

if ! "$ctest" --test-dir "$project/build" --output-on-failure > "$work/ctest-good.log" 2>&1; then
  echo "FAILED: the project's tests fail on its correct candidate:"
  cat "$work/ctest-good.log"
  exit 1
fi

# Break the candidate: the pointwise sum leaves out the last input channel.
candidate=$project/kernels/team_mobile_block/direct_fp32.cu
sed -i 's/c < g\.channels; ++c/c < g.channels - 1; ++c/' "$candidate"
grep -q "c < g.channels - 1; ++c" "$candidate" || { echo "FAILED: the candidate could not be broken"; exit 1; }
"$cmake" --build "$project/build" > "$work/build-broken.log" 2>&1 || { tail -50 "$work/build-broken.log"; exit 1; }
if "$ctest" --test-dir "$project/build" --output-on-failure > "$work/ctest-broken.log" 2>&1; then
  echo "FAILED: the project's tests pass on a broken candidate:"
  cat "$work/ctest-broken.log"
  exit 1
fi
if ! grep -q "incorrect" "$work/ctest-broken.log"; then
  echo "FAILED: the broken candidate's test failed without naming it incorrect:"
  cat "$work/ctest-broken.log"
  exit 1
fi
echo "the $form form builds the team's candidate, passes its test, and fails it once broken"
