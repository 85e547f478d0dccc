#!/usr/bin/env bash
# Regenerates docs/img/diff.png and docs/img/scopes.png, the screenshots in
# docs/diff.md and docs/report.md: the HTML of `roofline diff` on the
# before/after fixtures and of `report --by scope` on the "before" one
# (tests/data/diff, jax on CPU, costed on an H100), rendered by headless
# Chromium.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ROOFLINE_BUILD_DIR:-$root/build}"
data="$root/tests/data/diff"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$build/roofline" diff "$data/before.xplane.pb.gz" "$data/after.xplane.pb.gz" --chip h100-sxm --top 8 \
  --fail-if "mfu<-2% or step_time>+5%" --format html -o "$tmp/diff.html" || true  # the gate holds: exit 1
"$build/roofline" report "$data/before.xplane.pb.gz" --chip h100-sxm --by scope --format html -o "$tmp/scopes.html"
for page in diff:1200,900 scopes:1200,200; do
  size=${page#*:}
  page=${page%%:*}
  timeout 120 chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$tmp/profile" --window-size="$size" \
    --screenshot="$root/docs/img/$page.png" "file://$tmp/$page.html" 2>/dev/null
  echo "wrote docs/img/$page.png"
done
