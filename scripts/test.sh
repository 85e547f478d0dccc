#!/usr/bin/env bash
# Builds everything and runs every test through CTest. Stages, each timed:
#   deps       Debian packages (scripts/deps.sh)
#   venv       the Python oracles and build tools in .venv (scripts/venv.sh),
#              best effort: without PyPI the xprof_agreement test skips and
#              the Python package is not built
#   sanitize   the tests and the main demo under ASan+UBSan (scripts/sanitize.sh),
#              in a build that also holds the libFuzzer targets
#   fuzz       every libFuzzer target for a bounded time (scripts/fuzz.sh), from
#              the sanitize build (its own build when sanitize is left out)
#   wheel      pip wheel . into a fresh virtualenv, as a user installs the
#              Python package, and its tests there (scripts/python_package.sh)
#   release    the Release build and the whole CTest suite, last, so its
#              summary closes the output
# ROOFLINE_SKIP_VENV=1, ROOFLINE_SKIP_FUZZ=1, ROOFLINE_SKIP_SANITIZE=1 and
# ROOFLINE_SKIP_WHEEL=1 leave a stage out (for a quick local run).
#
# The wheel and the Release build compile the same library with the same
# g++ flags: through ccache (when installed), the second finds the first's
# objects. Their build folders sit at the same depth (build-test,
# build-whl), so the paths ccache hashes, made relative to the checkout,
# match. ROOFLINE_TEST_CCACHE=0 turns it off.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
timings=()
stage() {
  local name="$1" start=$SECONDS
  shift
  echo "test.sh: $name"
  "$@"
  timings+=("$name $((SECONDS - start)) s")
}
build="${ROOFLINE_TEST_BUILD_DIR:-$root/build-test}"
venv() {
  mkdir -p "$build"
  "$root/scripts/venv.sh" >"$build/venv.log" 2>&1 ||
    echo "test.sh: scripts/venv.sh failed (see $build/venv.log); xprof_agreement will skip"
}
release() {
  local jobs="${ROOFLINE_JOBS:-2}"
  # The Python package and its pytest suite, where .venv can build them.
  local python=(-DROOFLINE_PYTHON=OFF)
  if "$root/.venv/bin/python" -c "import nanobind, pytest" 2>/dev/null; then
    python=(-DROOFLINE_PYTHON=ON "-DPython_EXECUTABLE=$root/.venv/bin/python")
  else
    echo "test.sh: .venv has no nanobind and pytest (scripts/venv.sh): the Python package is not built or tested"
  fi
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DROOFLINE_WERROR=ON "${python[@]}"
  cmake --build "$build" -j "$jobs"
  ctest --test-dir "$build" --output-on-failure -j "$jobs" --timeout 600
}

stage deps env ROOFLINE_WITH_CHROMIUM=1 "$root/scripts/deps.sh"
if [ "${ROOFLINE_TEST_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR="$root"   # CMake reads the launcher from the environment
  export SKBUILD_BUILD_DIR="$root/build-whl"                         # scikit-build-core's build folder for the wheel
  export CMAKE_ARGS="-DROOFLINE_WERROR=ON"                           # the Release build's flags
  ccache -z >/dev/null
fi
if [ "${ROOFLINE_SKIP_VENV:-0}" != 1 ]; then stage venv venv; fi
# One instrumented library for the sanitize and fuzz stages.
sanitize_build="${ROOFLINE_SANITIZE_BUILD_DIR:-$root/build-asan}"
if [ "${ROOFLINE_SKIP_SANITIZE:-0}" != 1 ]; then
  fuzz_with=0
  if [ "${ROOFLINE_SKIP_FUZZ:-0}" != 1 ]; then fuzz_with=1; fi
  stage sanitize env ROOFLINE_SANITIZE_BUILD_DIR="$sanitize_build" ROOFLINE_SANITIZE_FUZZ="$fuzz_with" \
    "$root/scripts/sanitize.sh"
  if [ "$fuzz_with" = 1 ]; then
    stage fuzz env ROOFLINE_FUZZ_BUILD_DIR="$sanitize_build" ROOFLINE_FUZZ_BUILT=1 "$root/scripts/fuzz.sh"
  fi
elif [ "${ROOFLINE_SKIP_FUZZ:-0}" != 1 ]; then
  stage fuzz "$root/scripts/fuzz.sh"
fi
if [ "${ROOFLINE_SKIP_WHEEL:-0}" != 1 ]; then stage wheel "$root/scripts/python_package.sh" "$build/wheel"; fi
stage release release
if [ -n "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]; then
  ccache -s | grep -E 'Hits|Misses' | sed 's/^/test.sh: ccache /' || true
fi
echo "test.sh: stage times: ${timings[*]/%/;} total $SECONDS s"
