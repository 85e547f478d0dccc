#!/usr/bin/env bash
# Builds everything and runs every test through CTest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOFLINE_WITH_CHROMIUM=1 "$root/scripts/deps.sh"
# The parsers are fuzzed for a bounded time first; CTest runs last so its
# summary closes the output.
if [ "${ROOFLINE_SKIP_FUZZ:-0}" != 1 ]; then "$root/scripts/fuzz.sh"; fi
build="${ROOFLINE_TEST_BUILD_DIR:-$root/build-test}"
jobs="${ROOFLINE_JOBS:-2}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DROOFLINE_WERROR=ON
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" --output-on-failure -j "$jobs" --timeout 600
