#!/usr/bin/env bash
# Creates .venv in the repository root with the Python oracles the comparison
# scripts use (scripts/xprof_compare.py, scripts/make_trace_fixtures.py):
# jax and jaxlib (CPU) and xprof; and what the Python package (python/,
# docs/python.md) is built and tested with: nanobind and scikit-build-core,
# pytest, build, pandas, and dask (the map-reduce recipe of docs/partials.md,
# tests/python/test_partials.py). Pinned versions from PyPI. Idempotent: an existing
# .venv that already has these versions is left as it is.
#
# Usage: scripts/venv.sh            (python3 on PATH; PYTHON=python3.11 to choose)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$repo/.venv"
python="${PYTHON:-python3}"
pins=(jax==0.10.2 jaxlib==0.10.2 xprof==2.24.2 nanobind==3.1.0 scikit-build-core==1.1.2
      pytest==9.2.0 build==1.6.1 pandas==3.1.1 dask==2025.11.0)

have_pins() {
  [[ -x "$venv/bin/python" ]] || return 1
  "$venv/bin/python" - "${pins[@]}" <<'PY'
import sys
from importlib.metadata import version, PackageNotFoundError
for pin in sys.argv[1:]:
    name, want = pin.split("==")
    try:
        if version(name) != want:
            sys.exit(1)
    except PackageNotFoundError:
        sys.exit(1)
PY
}

if have_pins; then
  echo "$venv: ${pins[*]} already installed"
  exit 0
fi

if ! command -v "$python" >/dev/null; then
  echo "venv.sh: $python not found (set PYTHON to a Python 3.11+ interpreter)" >&2
  exit 1
fi
if [[ ! -x "$venv/bin/python" ]]; then
  if ! "$python" -m venv "$venv"; then
    echo "venv.sh: '$python -m venv' failed (on Debian/Ubuntu: apt-get install python3-venv)" >&2
    exit 1
  fi
fi
if ! "$venv/bin/python" -m pip install --disable-pip-version-check "${pins[@]}"; then
  echo "venv.sh: pip could not install ${pins[*]} into $venv (see pip's message above:" \
       "no network to PyPI, a proxy, or no wheel for this Python/platform)" >&2
  exit 1
fi
have_pins || { echo "venv.sh: $venv does not have ${pins[*]} after pip install" >&2; exit 1; }
echo "$venv: ${pins[*]} installed"
