#!/usr/bin/env bash
# ci/cpu-kernelgate.sh [KERNELGATE]: prints the kernelgate binary a script
# that models or counts runs (the cpu build's, unless one is given), or says
# how to get one and exits 2. Run from the checkout's root.
set -euo pipefail
kernelgate=${1:-build/cpu/bin/kernelgate}
[ -x "$kernelgate" ] || { echo "no $kernelgate: build the cpu preset first" >&2; exit 2; }
echo "$kernelgate"
