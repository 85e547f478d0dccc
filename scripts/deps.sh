#!/usr/bin/env bash
# Installs the Debian packages roofline needs, when missing. As root it runs
# apt-get; otherwise it prints the exact apt-get line and fails.
# libprotobuf-dev and protobuf-compiler serve bench/trace_bench only;
# python3-dev, python3-venv and python3-pip the Python package (pip install .);
# ccache lets scripts/test.sh compile the library once for the wheel and the
# Release build.
set -euo pipefail
packages=(cmake g++ make libeigen3-dev nlohmann-json3-dev libabsl-dev catch2
          libbenchmark-dev zlib1g-dev libprotobuf-dev protobuf-compiler
          libsimdjson-dev clang libclang-rt-14-dev python3-dev python3-venv python3-pip ccache)
if [ "${ROOFLINE_WITH_CHROMIUM:-0}" = 1 ]; then packages+=(chromium); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
  echo "roofline: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "roofline: missing packages; run:" >&2
  echo "  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
