# shellcheck shell=bash
# ci/lib/deps.sh: the gpu build against Debian packages unpacked into a
# private prefix instead of installed, for a machine that has the toolchain
# but not the build's development packages (the folder ci/device-deps.sh
# fills). Sourced by ci/device-deps.sh and ci/device-check.sh.
#
#   deps_manifest DIR        `name version` of every DIR/*.deb, sorted
#   deps_release             the Debian release and architecture of this machine
#   deps_unpack DIR PREFIX   every DIR/*.deb into PREFIX (emptied first),
#                            checked against DIR/packages.txt
#   deps_use PREFIX          the environment and `deps_configure_args` for it
#
# ci/device-deps.sh writes DIR/packages.txt with deps_manifest and
# DIR/release.txt with deps_release; deps_unpack compares both with this
# machine and what it unpacked.

deps_manifest() {
  local deb
  for deb in "$1"/*.deb; do
    # shellcheck disable=SC2016  # dpkg-deb's own fields, not the shell's
    dpkg-deb --show --showformat='${Package} ${Version}\n' "$deb"
  done | sort
}

deps_release() {
  # shellcheck source=/dev/null
  (. /etc/os-release && echo "${ID:-unknown} ${VERSION_ID:-unknown} $(dpkg --print-architecture)")
}

deps_unpack() {
  local dir=$1 prefix=$2 deb unpacked
  rm -rf "$prefix" && mkdir -p "$prefix" || return 1
  unpacked=$prefix/packages.txt
  for deb in "$dir"/*.deb; do
    [ -e "$deb" ] || { echo "no .deb files in $dir"; return 1; }
    dpkg-deb -x "$deb" "$prefix" || { echo "cannot unpack $deb"; return 1; }
  done
  deps_manifest "$dir" > "$unpacked"
  echo "unpacked into $prefix:"
  sed 's/^/  /' "$unpacked"
  deps_compare_release "$dir"
  # The manifest is what the folder was made with: a file missing or left
  # over on the way to this machine is an error, not a surprise at link time.
  diff "$dir/packages.txt" "$unpacked" || { echo "the .deb files differ from $dir/packages.txt"; return 1; }
}

# The packages are for one Debian release and architecture: another's
# libraries may not load here, so a mismatch is said first.
deps_compare_release() {
  local made_for here
  made_for=$(cat "$1/release.txt" 2> /dev/null || echo unknown)
  here=$(deps_release)
  [ "$made_for" = "$here" ] || echo "warning: the packages are for '$made_for', this machine is '$here'"
}

deps_use() {
  local usr=$1/usr multiarch
  multiarch=$("${CXX:-g++}" -print-multiarch 2> /dev/null)
  [ -n "$multiarch" ] || multiarch=$(uname -m)-linux-gnu
  # find_package, find_path, find_library and find_program search the prefix
  # first. OpenSSL's configuration header lives in the multiarch include
  # folder, which the compiler searches by itself only under /usr.
  # shellcheck disable=SC2034  # read by the script that sources this file
  deps_configure_args=(
    "-DCMAKE_PREFIX_PATH=$usr"
    "-DCMAKE_CXX_STANDARD_INCLUDE_DIRECTORIES=$usr/include/$multiarch"
  )
  # The build's binaries find the unpacked libraries through their RPATH;
  # xmllint and Python's jsonschema (the GPU tests' report checks) through these.
  export LD_LIBRARY_PATH="$usr/lib/$multiarch${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export PYTHONPATH="$usr/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}"
  export PATH="$PATH:$usr/bin"
}
