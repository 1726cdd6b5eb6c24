#!/usr/bin/env bash
# Installs every Debian package olla needs to build, test and run its Python layer (the
# Python packages, torch among them, come from the package index: scripts/python-env.sh).
# Idempotent: packages already present are skipped, and `apt-get update` runs only when
# something is missing. Needs root (or sudo) only when it has something to install.
#   scripts/install-deps.sh            what building and testing need
#   scripts/install-deps.sh --picture  also headless Chromium, which scripts/render-svg.sh
#                                      uses to turn olla's SVG pictures into PNG
set -euo pipefail

packages=(
  # Toolchain and build.
  build-essential cmake pkg-config clang-format
  # The fuzz targets: clang with libFuzzer and the sanitizer runtimes.
  clang libclang-rt-14-dev
  # C++ libraries.
  coinor-libcbc-dev nlohmann-json3-dev libsimdjson-dev libcli11-dev libfmt-dev zlib1g-dev
  libboost-graph-dev
  # bench/max_flow_bench.cc: LEMON's max flow, measured against Boost.Graph's.
  liblemon-dev
  libgtest-dev libgmock-dev libbenchmark-dev pybind11-dev
  # The Python the project's virtual environment is made from, and its headers for the
  # extension modules.
  python3 python3-dev python3-venv
)
if [ "${1:-}" = "--picture" ]; then
  packages+=(chromium fonts-dejavu-core)
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
