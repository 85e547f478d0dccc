#!/usr/bin/env bash
# A pod-scale profile read end to end: bench/make_pod_profile writes HOSTS
# files of BYTES_PER_HOST each (real events repeated, a straggler planted:
# see the header of bench/make_pod_profile.cc), then
#   roofline stats  DIR --format json --jobs JOBS
#   roofline report DIR --format json --jobs JOBS   (the chip is detected:
#                                                   A100 / TPU v6 Lite)
# are each run once under GNU time. Printed per command: the bytes read
# (uncompressed, on disk), wall time, MB/s overall and per core used
# (MB/s / min(JOBS, cores)) and peak RSS. The machine's other load counts.
#
#   bench/pod_scale.sh [ROOFLINE] [FORMAT] [HOSTS] [BYTES_PER_HOST] [JOBS]
#   bench/pod_scale.sh build/roofline kineto 64 256M 2     # the 16 GiB run
#
# Defaults: build/roofline, kineto, 4 hosts x 16M, --jobs 2 (a smoke run).
# Environment: POD_DIR=DIR reads the profile there if DIR holds one, else
# generates into it; KEEP=1 keeps what was generated (else it is removed);
# MAKE_POD=PATH the generator (default: bench/make_pod_profile beside
# ROOFLINE); COMMANDS="stats" to time stats only; MAX_RSS_MB=N kills a
# command whose resident memory passes N MB (exit 143, its figures then
# being those up to the kill); TMPDIR where the temporary folder goes.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
roofline=${1:-$here/build/roofline}
format=${2:-kineto}
hosts=${3:-4}
bytes=${4:-16M}
jobs=${5:-2}
make_pod=${MAKE_POD:-$(dirname "$roofline")/bench/make_pod_profile}
commands=${COMMANDS:-stats report}

[ -x "$roofline" ] || { echo "pod_scale.sh: no roofline binary at $roofline (build roofline_cli)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "pod_scale.sh: needs GNU time at /usr/bin/time" >&2; exit 2; }
case "$format" in
  kineto) suffix=.pt.trace.json ;;
  xplane) suffix=.xplane.pb ;;
  *) echo "pod_scale.sh: FORMAT $format: expected kineto or xplane" >&2; exit 2 ;;
esac
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "pod_scale.sh: JOBS $jobs: expected a positive integer" >&2; exit 2; }

generated=
scratch=$(mktemp -d "${TMPDIR:-/tmp}/roofline_pod_scale_XXXXXX")
cleanup() {
  rm -rf "$scratch"
  if [ -n "$generated" ] && [ "${KEEP:-0}" != 1 ]; then
    if [ -n "${POD_DIR:-}" ]; then rm -f "$generated"/host*"$suffix"; else rm -rf "$generated"; fi
  fi
}
trap cleanup EXIT

if [ -n "${POD_DIR:-}" ] && compgen -G "$POD_DIR/host*$suffix" >/dev/null; then
  dir=$POD_DIR
  echo "reusing $dir"
else
  [ -x "$make_pod" ] || { echo "pod_scale.sh: no generator at $make_pod (build make_pod_profile)" >&2; exit 2; }
  if [ -n "${POD_DIR:-}" ]; then dir=$POD_DIR; else dir=$scratch/pod; fi
  generated=$dir
  start=$(date +%s.%N)
  "$make_pod" --format "$format" --hosts "$hosts" --bytes-per-host "$bytes" --out "$dir"
  echo "generated in $(printf %.1f "$(echo "$(date +%s.%N) - $start" | bc -l)") s"
fi

files=$(find "$dir" -maxdepth 1 -name "host*$suffix" | wc -l)
total=$(find "$dir" -maxdepth 1 -name "host*$suffix" -printf '%s\n' | awk '{s += $1} END {printf "%.0f", s}')
cores=$(nproc)
used=$((jobs < cores ? jobs : cores))
printf '%s: %d files, %.2f GB, --jobs %d on %d cores\n' "$format" "$files" "$(echo "$total / 1000000000" | bc -l)" "$jobs" "$cores"
echo "command  GB_read  wall_s  MB/s  MB/s_per_core  peak_RSS_MB  exit"
for cmd in $commands; do
  rc=0
  /usr/bin/time -f '%e %M' -o "$scratch/time" \
    "$roofline" "$cmd" "$dir" --format json --jobs "$jobs" >"$scratch/out.json" 2>"$scratch/err" &
  timed=$!
  if [ -n "${MAX_RSS_MB:-}" ]; then
    while kill -0 "$timed" 2>/dev/null; do
      child=$(pgrep -P "$timed" || true)
      kb=$( [ -n "$child" ] && awk '/^VmRSS/ {print $2}' "/proc/$child/status" 2>/dev/null || true)
      if [ -n "$kb" ] && [ "$kb" -gt $((MAX_RSS_MB * 1024)) ]; then
        echo "$cmd: resident memory passed $MAX_RSS_MB MB: killed" >&2
        kill "$child"
        break
      fi
      sleep 1
    done
  fi
  wait "$timed" || rc=$?
  read -r wall rss < <(tail -n 1 "$scratch/time")
  [ "$(echo "$wall > 0" | bc -l)" = 1 ] || wall=0.01  # below GNU time's resolution
  mbs=$(echo "$total / 1000000 / $wall" | bc -l)
  printf '%-7s  %7.2f  %6.1f  %4.0f  %13.0f  %11.0f  %4d\n' "$cmd" "$(echo "$total / 1000000000" | bc -l)" "$wall" \
    "$mbs" "$(echo "$mbs / $used" | bc -l)" "$((rss / 1024))" "$rc"
  [ "$rc" = 0 ] || sed -n 1,3p "$scratch/err" >&2
done
