#!/usr/bin/env bash
# The Python package as a user installs it: `pip wheel .` from the
# repository (build isolation: pip fetches scikit-build-core and nanobind
# from PyPI; the C++ dependencies are the Debian packages of scripts/deps.sh),
# the wheel installed into a fresh virtualenv with nothing else but pytest,
# the README's one-line check, then the pytest suite on the installed package
# and its `roofline` command (jax and pandas absent there: those tests skip
# or check the message a user without them gets). Last, the README's Python
# lines as a new user runs them: a second fresh virtualenv with the wheel and
# jax (the version scripts/venv.sh pins, from pip's cache after it), from the
# repository root (tests/python/test_package_entry.py).
#
# Usage: scripts/python_package.sh [WORK_DIR]   (default build-test/wheel)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${1:-$root/build-test/wheel}"
python="${PYTHON:-python3}"
rm -rf "$work"
mkdir -p "$work"
"$python" -m venv "$work/venv"
"$work/venv/bin/pip" install --disable-pip-version-check -q pytest
"$work/venv/bin/pip" wheel --disable-pip-version-check --no-deps -w "$work/dist" "$root"
"$work/venv/bin/pip" install --disable-pip-version-check -q "$work"/dist/roofline-*.whl
cd "$work"
got="$("$work/venv/bin/python" -c "import roofline; print(roofline.predict(roofline.Matmul(m=32768, k=8192, n=32768), roofline.chip('tpu-v5e')).t_math_s)")"
echo "python_package.sh: roofline.predict(Matmul(m=32768, k=8192, n=32768), chip('tpu-v5e')).t_math_s = $got"
case "$got" in 0.0893*) ;; *) echo "python_package.sh: expected 0.0893..." >&2; exit 1 ;; esac
PATH="$work/venv/bin:$PATH" ROOFLINE_CLI="$work/venv/bin/roofline" \
  "$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$root/tests/python"
readme="$work/readme-venv"
"$python" -m venv "$readme"
"$readme/bin/pip" install --disable-pip-version-check -q pytest jax==0.10.2 jaxlib==0.10.2 "$work"/dist/roofline-*.whl
cd "$root"
"$readme/bin/python" -m pytest -q -p no:cacheprovider "$root/tests/python/test_package_entry.py"
