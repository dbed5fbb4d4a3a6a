#!/usr/bin/env bash
# Installs every Debian package that building and testing kernelgate needs.
# Safe to run repeatedly; uses sudo when not root.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  nlohmann-json3-dev libtinyxml2-dev libcli11-dev libssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev libboost-context-dev
  libxml2-utils python3 python3-venv python3-jsonschema
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
if [ ! -x "$tools_venv/bin/check-jsonschema" ]; then
  python3 -m venv "$tools_venv"
  "$tools_venv/bin/pip" install -q --disable-pip-version-check check-jsonschema==0.39.0
fi
