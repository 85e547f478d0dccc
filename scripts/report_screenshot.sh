#!/usr/bin/env bash
# Regenerates docs/img/report.png, the screenshot in docs/report.md: the HTML
# report of the real TPU v6e profile, rendered by headless Chromium.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ROOFLINE_BUILD_DIR:-$root/build}"
trace="$root/../shared/data/real/xprof/tpu_v6e_x4_inference_2.xplane.pb"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$build/roofline" report "$trace" --device 0 --format html -o "$tmp/report.html"
timeout 120 chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
  --user-data-dir="$tmp/profile" --window-size=1200,1500 \
  --screenshot="$root/docs/img/report.png" "file://$tmp/report.html" 2>/dev/null
echo "wrote docs/img/report.png"
