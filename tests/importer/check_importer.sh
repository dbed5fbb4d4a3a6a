#!/usr/bin/env bash
# The importer's test (check_importer.py) with a Python that has torch:
# $KERNELGATE_TORCH_PYTHON, else the golden fixtures' venv (build/golden-venv),
# else a venv this script makes in the build folder, installing PyTorch's CPU
# wheel into it. PyTorch is a development tool here, never a dependency of
# kernelgate; where it cannot be had the test is skipped (exit 77) saying so.
#   check_importer.sh KERNELGATE OUT BUILD_DIR
set -uo pipefail
kernelgate=$1 out=$2 build=$3
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

has_torch() { [ -n "$1" ] && [ -x "$1" ] && "$1" -c 'import numpy, torch' 2>/dev/null; }

python=${KERNELGATE_TORCH_PYTHON:-}
has_torch "$python" || python=$root/build/golden-venv/bin/python
if ! has_torch "$python"; then
  venv=$build/importer-venv
  python=$venv/bin/python
  if ! has_torch "$python"; then
    echo "== no Python with torch: installing PyTorch (CPU) into $venv"
    python3 -m venv "$venv" >/dev/null 2>&1 &&
      "$venv/bin/pip" install --quiet numpy torch --index-url https://download.pytorch.org/whl/cpu \
        --extra-index-url https://pypi.org/simple
  fi
fi
if ! has_torch "$python"; then
  echo "importer test skipped: no Python with torch and numpy, and PyTorch could not be installed" \
       "(set KERNELGATE_TORCH_PYTHON to a Python that has them)"
  exit 77
fi
rm -rf "$out"
exec "$python" "$here/check_importer.py" --kernelgate "$kernelgate" --out "$out"
