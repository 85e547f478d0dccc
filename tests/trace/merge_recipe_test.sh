#!/usr/bin/env bash
# The map-reduce recipe of docs/partials.md, run locally: map each trace to
# a partial in parallel (xargs -P), reduce with `roofline merge` (all at
# once, and as a tree: merged partials of merged partials), and check that
# every way prints byte for byte what `roofline stats` prints over the same
# files in one pass, in text, json and csv.
# Usage: merge_recipe_test.sh ROOFLINE_CLI SOURCE_DIR
set -euo pipefail
roofline="$1"
src="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
files=(
  "$src/tests/data/trace/jax_cpu8.xplane.pb"
  "$src/examples/profiles/resnet50_v100_train_step.pt.trace.json.gz"
  "$src/tests/data/trace/kineto_small.json"
  "$src/tests/data/trace/tsl_tpu_nested.json"
  "$src/tests/data/trace/old_kineto_epoch.json"
)
# Map: one partial per file, two at a time; part<i>.json keeps the file order.
mkdir "$work/parts"
for i in "${!files[@]}"; do printf '%s\0%s\0' "$i" "${files[$i]}"; done |
  xargs -0 -P 2 -n 2 sh -c '"$0" stats "$3" --partial -o "$1/part$2.json"' "$roofline" "$work/parts"
parts=()
for i in "${!files[@]}"; do parts+=("$work/parts/part$i.json"); done
# Reduce as a tree: (0 1) (2 3 4), then the two.
"$roofline" merge "${parts[0]}" "${parts[1]}" --partial -o "$work/left.json"
"$roofline" merge "${parts[2]}" "${parts[3]}" "${parts[4]}" --partial -o "$work/right.json"
status=0
for format in text json csv; do
  "$roofline" stats "${files[@]}" --format "$format" >"$work/one_pass.$format"
  "$roofline" merge "${parts[@]}" --format "$format" >"$work/merged.$format"
  "$roofline" merge "$work/left.json" "$work/right.json" --format "$format" >"$work/tree.$format"
  for way in merged tree; do
    if ! cmp -s "$work/one_pass.$format" "$work/$way.$format"; then
      echo "FAIL: $way --format $format differs from one pass:"
      diff "$work/one_pass.$format" "$work/$way.$format" | head -20
      status=1
    fi
  done
done
# The files hold devices of several hosts: the figures across devices
# (stragglers, collective waits) are part of what was compared.
grep -q '"across_devices"' "$work/one_pass.json" || { echo "FAIL: no across_devices in the one-pass JSON"; status=1; }
grep -q '^across devices' "$work/one_pass.text" || { echo "FAIL: no across devices section in the one-pass text"; status=1; }
[ $status -eq 0 ] && echo "merge recipe: ${#files[@]} files, merged and tree-merged partials equal one pass (text, json, csv)"
exit $status
