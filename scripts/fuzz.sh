#!/usr/bin/env bash
# Builds every libFuzzer target with clang under ASan+UBSan and runs each
# from its seed corpus for at most ROOFLINE_FUZZ_RUNS inputs or
# ROOFLINE_FUZZ_SECONDS seconds, whichever comes first. A crash, leak or
# sanitizer report fails the script and leaves the input in the build dir.
#
# CI runs are reproducible: a fixed seed and a fresh corpus make the
# mutation sequence the same on every machine (a slower machine runs a
# prefix of it). For a deeper search: ROOFLINE_FUZZ_SEED=0 (random)
# ROOFLINE_FUZZ_SECONDS=600 ROOFLINE_FUZZ_RUNS=-1 scripts/fuzz.sh
#
# ROOFLINE_FUZZ_BUILT=1 runs the fuzzers already built in
# ROOFLINE_FUZZ_BUILD_DIR (scripts/test.sh: the sanitize build, -O1, made
# with ROOFLINE_SANITIZE_FUZZ=1) instead of configuring and building its own
# (-O2).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ROOFLINE_FUZZ_BUILD_DIR:-$root/build-fuzz}"
seconds="${ROOFLINE_FUZZ_SECONDS:-10}"
runs="${ROOFLINE_FUZZ_RUNS:-300000}"
seed="${ROOFLINE_FUZZ_SEED:-1}"
if [ "${ROOFLINE_FUZZ_BUILT:-0}" = 1 ]; then
  if ! compgen -G "$build/fuzz/*_fuzz" >/dev/null; then
    echo "fuzz: ROOFLINE_FUZZ_BUILT=1 but $build/fuzz has no fuzzer (build it with ROOFLINE_FUZZ=ON)" >&2
    exit 1
  fi
else
  CXX=clang++ CC=clang cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DROOFLINE_FUZZ=ON -DROOFLINE_BUILD_TESTS=OFF -DROOFLINE_BUILD_BENCH=OFF \
    -DROOFLINE_BUILD_EXAMPLES=OFF -DROOFLINE_BUILD_CLI=OFF >/dev/null
  cmake --build "$build" -j "${ROOFLINE_JOBS:-2}"
fi
status=0
for fuzzer in "$build"/fuzz/*_fuzz; do
  name="$(basename "$fuzzer")"
  corpus="$build/corpus/$name"
  rm -rf "$corpus"
  mkdir -p "$corpus"
  seeds="$root/fuzz/corpus/$name"
  [ -d "$seeds" ] || seeds=""
  echo "fuzz: $name (seed $seed, at most $runs inputs or ${seconds}s)"
  if ! (cd "$build" && UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        "$fuzzer" -seed="$seed" -runs="$runs" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
        -print_final_stats=0 "$corpus" $seeds >"$build/$name.log" 2>&1); then
    echo "fuzz: $name FAILED; see $build/$name.log"
    tail -40 "$build/$name.log"
    status=1
  fi
done
exit $status
