#!/usr/bin/env bash
# Builds every libFuzzer target with clang under ASan+UBSan and runs each for
# a bounded time (ROOFLINE_FUZZ_SECONDS, default 30) from its seed corpus.
# A crash, leak or sanitizer report fails the script and leaves the input.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ROOFLINE_FUZZ_BUILD_DIR:-$root/build-fuzz}"
seconds="${ROOFLINE_FUZZ_SECONDS:-30}"
CXX=clang++ CC=clang cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DROOFLINE_FUZZ=ON -DROOFLINE_BUILD_TESTS=OFF -DROOFLINE_BUILD_BENCH=OFF \
  -DROOFLINE_BUILD_EXAMPLES=OFF -DROOFLINE_BUILD_CLI=OFF >/dev/null
cmake --build "$build" -j "${ROOFLINE_JOBS:-2}"
status=0
for fuzzer in "$build"/fuzz/*_fuzz; do
  name="$(basename "$fuzzer")"
  corpus="$build/corpus/$name"
  mkdir -p "$corpus"
  seeds="$root/fuzz/corpus/$name"
  [ -d "$seeds" ] || seeds=""
  echo "fuzz: $name for ${seconds}s"
  if ! (cd "$build" && UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        "$fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
        -print_final_stats=0 "$corpus" $seeds >"$build/$name.log" 2>&1); then
    echo "fuzz: $name FAILED; see $build/$name.log"
    tail -40 "$build/$name.log"
    status=1
  fi
done
exit $status
