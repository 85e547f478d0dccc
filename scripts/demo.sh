#!/usr/bin/env bash
# The main job: installs what is missing, builds roofline (Release) and
# reports expected vs observed on a profile: the one given as the argument,
# or by default the real TPU v6e profile that ships in examples/profiles/
# (its source and license are in examples/profiles/README.md). It prints the
# text report and writes the HTML page next to it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/deps.sh"
build="${ROOFLINE_BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DROOFLINE_BUILD_TESTS=OFF \
      -DROOFLINE_BUILD_BENCH=OFF -DROOFLINE_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j "${ROOFLINE_JOBS:-2}" --target roofline_cli >/dev/null
# The built-in profile holds four chips that ran the same program: the
# report shows the first. A profile given as the argument is reported whole.
if [ $# -ge 1 ]; then
  trace=$1
  select=()
else
  trace="$root/examples/profiles/tpu_v6e_x4_inference_2.xplane.pb"
  select=(--device 0)
fi
if [ ! -e "$trace" ]; then
  echo "demo.sh: no profile at $trace" >&2
  exit 1
fi
out="$build/report"
mkdir -p "$out"
"$build/roofline" report "$trace" "${select[@]}" | tee "$out/report.txt"
"$build/roofline" report "$trace" "${select[@]}" --format html -o "$out/report.html"
echo
echo "Text report: $out/report.txt"
echo "HTML report: $out/report.html (open it in a browser)"
