#!/usr/bin/env bash
# Runs every command of the CLI over every real profile and test file, in
# every output format, with two builds of `roofline`, and shows where their
# outputs differ. A restructuring that claims "no output changes" proves it
# with this: the list of differing outputs is empty, or each one is named in
# the commit message.
#
#   scripts/compare_outputs.sh OLD_ROOFLINE NEW_ROOFLINE [OUT_DIR]
#
# OUT_DIR (default: a fresh temporary folder) gets old/ and new/ with one
# file per command (its stdout, then its stderr and exit status), and
# differ.txt listing the files that differ. Exit status: 0 when all are
# byte-identical, 1 when some differ.
set -uo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 OLD_ROOFLINE NEW_ROOFLINE [OUT_DIR]" >&2
  exit 2
fi
old=$(realpath "$1")
new=$(realpath "$2")
out=${3:-$(mktemp -d)}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
real="$root/../shared/data/real"
mkdir -p "$out/old" "$out/new"

# Each line: a name for the output file, then the arguments.
cases=()
add() { cases+=("$*"); }

traces=()
if [ -d "$real" ]; then
  while IFS= read -r f; do traces+=("$f"); done < <(find "$real" \( -name '*.xplane.pb' -o -name '*.json.gz' \) | sort)
else
  echo "note: $real is absent: only tests/data is compared" >&2
fi
while IFS= read -r f; do traces+=("$f"); done < <(find "$root/tests/data/trace" -type f | sort)

hlos=()
if [ -d "$real" ]; then
  while IFS= read -r f; do hlos+=("$f"); done < <(find "$real" -name '*.hlo_proto.pb' | sort)
fi
while IFS= read -r f; do hlos+=("$f"); done < <(find "$root/tests/data/hlo" -type f | sort)

chip_for() {
  case "$1" in
    *tpu_v6e*) echo tpu-v6e ;;
    *mi300x*) echo mi300x ;;
    *) echo tpu-v5e ;;
  esac
}

n=0
run_case() {  # name, then the CLI arguments
  local name=$1; shift
  for side in old new; do
    local bin=$old; [ $side = new ] && bin=$new
    { "$bin" "$@" 2>"$out/$side/$name.err"; echo "exit $?" >>"$out/$side/$name.err"; } >"$out/$side/$name.out"
    # The planner reports its own wall-clock search time: not an output.
    case "$name" in plan.*) sed -i -E 's/searched in [0-9.]+ [mu]?s/searched in (time)/; s/"search_seconds": [0-9.e+-]+/"search_seconds": 0/' "$out/$side/$name.out";; esac
  done
  n=$((n + 1))
}

for f in "${traces[@]}"; do
  base=$(basename "$f")
  for fmt in text json csv; do run_case "stats.$base.$fmt" stats "$f" --format $fmt; done
  for fmt in text md json csv html; do run_case "report.$base.$fmt" report "$f" --format $fmt; done
  run_case "report.$base.target-h100.text" report "$f" --target-chip h100-sxm --format text
  run_case "report.$base.target-v5e.json" report "$f" --target-chip tpu-v5e --format json
done
for f in "${hlos[@]}"; do
  base=$(basename "$f")
  for chip in "$(chip_for "$f")" h100-sxm v100-sxm2; do
    for fmt in text json csv; do run_case "hlo.$base.$chip.$fmt" hlo "$f" --chip "$chip" --format $fmt; done
  done
done
run_case chips chips
while IFS= read -r c; do run_case "chip.$c" chip "$c"; done < <("$new" chips --format json 2>/dev/null | grep -o '"name": *"[^"]*"' | sed 's/.*"\([^"]*\)"$/\1/')
for c in tpu-v4 tpu-v5e tpu-v5p tpu-v6e tpu-7x h100-sxm h200 b200 a100-sxm mi300x v100-sxm2 mi250; do
  run_case "chip.$c" chip "$c"
done
run_case demo demo
for dt in bf16 f32 fp8 int8; do
  for fmt in text json; do
    run_case "predict.matmul.$dt.$fmt" predict matmul --chip tpu-v5e --m 32768 --k 8192 --n 32768 --dtype $dt --format $fmt
    run_case "predict.matmul.h100.$dt.$fmt" predict matmul --chip h100-sxm --m 8 --k 8192 --n 32768 --dtype $dt --format $fmt
  done
done
run_case predict.matmul.negative predict matmul --chip tpu-v5e --m -5 --k 8192 --n 8192
for op in all-gather reduce-scatter all-reduce all-to-all; do
  for fmt in text json; do
    run_case "predict.collective.$op.$fmt" predict collective --op $op --chip tpu-v5e --mesh X=8,Y=4 --axes Y --bytes 1e9 --format $fmt
  done
done
for expr in 'x[B_X, D] @ w[D, F_Y]' 'x[B, D_X] @ w[D_X, F]' 'x[B_X, D_Y] @ w[D_Y, F]'; do
  for fmt in text json; do
    run_case "predict.sharded.$(echo "$expr" | tr -c 'A-Za-z0-9' _).$fmt" predict "$expr" --chip tpu-v5e --mesh X=8,Y=4 \
      --dims B=8192,D=8192,F=32768 --format $fmt
  done
done
for fmt in text json csv; do
  run_case "plan.70b.v5p.$fmt" plan --model llama-3-70b --chip tpu-v5p --chips 256 --batch-tokens 4194304 --format $fmt
  run_case "plan.8b.h100.$fmt" plan --model llama-3-8b --chip h100-sxm --chips 64 --batch-tokens 1048576 --format $fmt
done

: >"$out/differ.txt"
for f in "$out"/old/*; do
  b=$(basename "$f")
  cmp -s "$f" "$out/new/$b" || echo "$b" >>"$out/differ.txt"
done
d=$(wc -l <"$out/differ.txt")
echo "compared $((n * 2)) outputs of $n commands: $d differ (list: $out/differ.txt)"
[ "$d" -eq 0 ]
