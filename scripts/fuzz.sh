#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang with ASan and UBSan) in build-fuzz/ and runs
# each for SECONDS seconds (default 60), from a corpus kept in build-fuzz/corpus/ and
# seeded with examples/ and tests/errors/. Inputs in fuzz/regressions/TARGET/ (crashes
# found before, now fixed) run first, once each. A crash stops the run with exit 1
# and leaves the input in build-fuzz/artifacts/; add it to fuzz/regressions/ with the fix.
#   scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=build-fuzz
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DOLLA_FUZZ=ON -DOLLA_BUILD_TESTS=OFF -DOLLA_BUILD_BENCH=OFF -DOLLA_BUILD_PYTHON=OFF \
  >/dev/null
cmake --build "$build" -j "$(nproc)" --target graph_json_fuzz plan_json_fuzz \
  pins_json_fuzz placement_csv_fuzz optimize_fuzz

seeds() {
  case "$1" in
    graph_json|optimize) ls examples/*.json tests/errors/graph/*.json ;;
    plan_json) ls examples/*.plan.json tests/errors/plan/*.json ;;
    pins_json) ls examples/schedule/*.json tests/errors/pins/*.json ;;
    placement_csv) ls examples/placement/*.csv tests/errors/csv/*.csv ;;
  esac
}

mkdir -p "$build/artifacts"
for target in graph_json plan_json pins_json placement_csv optimize; do
  binary="$build/bin/${target}_fuzz"
  corpus="$build/corpus/$target"
  mkdir -p "$corpus"
  seeds "$target" | while read -r seed; do cp -n "$seed" "$corpus/" 2>/dev/null || true; done
  if [ -d "fuzz/regressions/$target" ] && [ -n "$(ls -A "fuzz/regressions/$target")" ]; then
    "$binary" -runs=0 "fuzz/regressions/$target"/* >/dev/null 2>&1 ||
      { echo "fuzz: $target fails on a regression input" >&2; exit 1; }
  fi
  log="$build/$target.log"
  if ! "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$build/artifacts/$target-" "$corpus" \
      >"$log" 2>&1; then
    tail -40 "$log" >&2
    echo "fuzz: $target found a crash (input in $build/artifacts/)" >&2
    exit 1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{print $2}')
  echo "fuzz: $target ran ${runs:-?} inputs in ${seconds} s, corpus $(ls "$corpus" | wc -l) files: no crash"
done
