#!/usr/bin/env bash
# Reading many files at once (TraceReadOptions::jobs, `--jobs N`): a folder of
# N copies of one trace, as a GPU job writes one trace per rank, read by
# `roofline stats DIR --format json` with each --jobs given. Wall time is the
# best of REPEAT runs (the machine may be shared); MB/s counts the bytes the
# readers make sense of (decompressed bytes for .gz), as bench/trace_bench.cc
# does. Peak RSS is the process's (GNU time), all files and the merged trace.
#
#   bench/many_files.sh [ROOFLINE] [TRACE] [N] [JOBS...]
#   bench/many_files.sh build/roofline ../shared/data/real/hta/a100-80gb_16rank_rank0.json.gz 8 1 2
#
# Defaults: build/roofline, the real A100 16-rank Kineto trace (25.8 MB of
# JSON, 1.38 MB gzip'd), 8 copies, --jobs 1 and 2; REPEAT=3.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
roofline=${1:-$here/build/roofline}
trace=${2:-$here/../shared/data/real/hta/a100-80gb_16rank_rank0.json.gz}
copies=${3:-8}
shift $(($# < 3 ? $# : 3))
jobs=("$@")
[ ${#jobs[@]} -gt 0 ] || jobs=(1 2)
repeat=${REPEAT:-3}

[ -x "$roofline" ] || { echo "no roofline binary at $roofline (build roofline_cli)" >&2; exit 1; }
[ -f "$trace" ] || { echo "no trace at $trace" >&2; exit 1; }

dir=$(mktemp -d /tmp/roofline_many_files_XXXXXX)
trap 'rm -rf "$dir"' EXIT
case "$trace" in
  *.gz) suffix=.pt.trace.json.gz; plain_bytes=$(gzip -dc "$trace" | wc -c) ;;
  *) suffix=.pt.trace.json; plain_bytes=$(wc -c <"$trace") ;;
esac
for ((i = 0; i < copies; i++)); do cp "$trace" "$dir/rank$i$suffix"; done
total=$((plain_bytes * copies))

echo "$copies x $(basename "$trace") ($((total / 1000000)) MB to parse), $(nproc) cores, best of $repeat"
echo "jobs  wall_s  MB/s  peak_RSS_MB"
for j in "${jobs[@]}"; do
  best=
  for ((r = 0; r < repeat; r++)); do
    start=$(date +%s.%N)
    /usr/bin/time -f %M -o "$dir/rss" "$roofline" stats "$dir" --format json --jobs "$j" >/dev/null
    end=$(date +%s.%N)
    s=$(echo "$end - $start" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$s < $best" | bc -l)" = 1 ]; then best=$s; rss=$(cat "$dir/rss"); fi
  done
  printf "%4s  %6.2f  %4.0f  %5.0f\n" "$j" "$best" "$(echo "$total / $best / 1000000" | bc -l)" "$((rss / 1024))"
done
