#!/usr/bin/env bash
# Builds the library, the CLI and the tests with clang under ASan+UBSan
# (-DROOFLINE_SANITIZE=ON, -O1) in build-asan, runs the CTest suite and the
# main demo (`roofline report` on the example XPlane, text and html) there,
# and fails at the first sanitizer report.
#
# Left out of the CTest run (-E): the "package:" tests. They install and
# build consumer projects without the sanitizers, which cannot link the
# instrumented library; the Release ctest runs them. Everything else runs, the real-trace checks and
# xprof_agreement (the CLI on every real XPlane; it skips without .venv)
# included.
#
# With ROOFLINE_SANITIZE_FUZZ=1 (scripts/test.sh sets it) the libFuzzer
# targets are built there too, on the same instrumented library, for
# scripts/fuzz.sh to run (ROOFLINE_FUZZ_BUILT=1): the library is compiled
# once for both instead of twice (about 200 s of CI on 2 cores).
#
# Usage: scripts/sanitize.sh    (ROOFLINE_SANITIZE_BUILD_DIR, ROOFLINE_JOBS,
#                                ROOFLINE_SANITIZE_FUZZ)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ROOFLINE_SANITIZE_BUILD_DIR:-$root/build-asan}"
jobs="${ROOFLINE_JOBS:-2}"
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
fuzz=OFF
if [ "${ROOFLINE_SANITIZE_FUZZ:-0}" = 1 ]; then fuzz=ON; fi
CXX=clang++ CC=clang cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1" -DROOFLINE_SANITIZE=ON -DROOFLINE_FUZZ="$fuzz" -DROOFLINE_WERROR=ON \
  -DROOFLINE_BUILD_TESTS=ON -DROOFLINE_BUILD_CLI=ON -DROOFLINE_BUILD_BENCH=OFF \
  -DROOFLINE_BUILD_EXAMPLES=OFF "${launcher[@]}" >/dev/null
cmake --build "$build" -j "$jobs"

# halt_on_error: the first report ends the process with a failure, which
# CTest counts; detect_leaks: a leak at exit is a report too.
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
ctest --test-dir "$build" --output-on-failure -j "$jobs" --timeout 1200 \
  -E '^package: '

demo="$root/examples/profiles/resnet50_v100_train_step.pt.trace.json.gz"
for format in text html; do
  echo "sanitize: roofline report $(basename "$demo") --format $format"
  "$build/roofline" report "$demo" --format "$format" -o "$build/demo.$format"
done
echo "sanitize: no sanitizer report"
