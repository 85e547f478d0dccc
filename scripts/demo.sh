#!/usr/bin/env bash
# The main job: installs what is missing, builds roofline (Release) and
# reports expected vs observed on a profile: the one given as the argument,
# or by default a real PyTorch training step (ResNet-50 on a V100) that
# ships in examples/profiles/ (its source and license are in
# examples/profiles/README.md). It prints the
# text report and writes the HTML page next to it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/deps.sh"
build="${ROOFLINE_BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DROOFLINE_BUILD_TESTS=OFF \
      -DROOFLINE_BUILD_BENCH=OFF -DROOFLINE_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j "${ROOFLINE_JOBS:-2}" --target roofline_cli >/dev/null
# Given profiles are reported whole; so is the built-in one (one GPU).
if [ $# -ge 1 ]; then
  trace=$1
else
  trace="$root/examples/profiles/resnet50_v100_train_step.pt.trace.json.gz"
fi
if [ ! -e "$trace" ]; then
  echo "demo.sh: no profile at $trace" >&2
  exit 1
fi
out="$build/report"
mkdir -p "$out"
"$build/roofline" report "$trace" | tee "$out/report.txt"
"$build/roofline" report "$trace" --format html -o "$out/report.html"
echo
echo "Text report: $out/report.txt"
echo "HTML report: $out/report.html (open it in a browser)"
