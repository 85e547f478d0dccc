#!/usr/bin/env bash
# The main job on its built-in default: installs what is missing, builds
# (Release) and runs roofline.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/deps.sh"
build="${ROOFLINE_BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DROOFLINE_BUILD_TESTS=OFF \
      -DROOFLINE_BUILD_BENCH=OFF -DROOFLINE_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j "${ROOFLINE_JOBS:-2}" --target roofline_cli >/dev/null
"$build/roofline" demo
