#!/usr/bin/env bash
# The main job: installs what is missing, builds roofline (Release) and
# reports expected vs observed on the real TPU v6e profile in
# ../shared/data/real when it is there, writing the HTML page next to the
# text; otherwise runs the built-in default (the worked examples' rooflines).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/deps.sh"
build="${ROOFLINE_BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DROOFLINE_BUILD_TESTS=OFF \
      -DROOFLINE_BUILD_BENCH=OFF -DROOFLINE_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j "${ROOFLINE_JOBS:-2}" --target roofline_cli >/dev/null
trace="${1:-$root/../shared/data/real/xprof/tpu_v6e_x4_inference_2.xplane.pb}"
if [ -e "$trace" ]; then
  out="$build/report"
  mkdir -p "$out"
  "$build/roofline" report "$trace" --device 0 | tee "$out/report.txt"
  "$build/roofline" report "$trace" --device 0 --format html -o "$out/report.html"
  echo
  echo "Text report: $out/report.txt"
  echo "HTML report: $out/report.html (open it in a browser)"
else
  echo "(no profile at $trace: showing the built-in worked examples instead)"
  echo
  "$build/roofline" demo
fi
