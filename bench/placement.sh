#!/usr/bin/env bash
# The placement benchmark: every MiniMalloc-format instance in ../shared/data, each
# placed by the greedy methods and by `auto` (exact search where it applies), and the
# challenging set decided at capacity 1048576. Writes bench/results/placement.md.
# Usage: bench/placement.sh [BUILD_DIR] [TIME_LIMIT_SECONDS]
set -euo pipefail
build=${1:-build}
limit=${2:-30}
cd "$(dirname "$0")/.."
data=../shared/data
olla="$build/bin/olla"
out=bench/results/placement.md
if [ ! -d "$data" ]; then
  echo "bench/placement.sh: $data is absent; nothing to measure" >&2
  exit 0
fi

# Best known peaks (DESIGN.md, section 4) where they differ from the bound.
best_known() {
  case "$1" in
    D.1048576) echo 1031168 ;;
    J.1048576) echo 1041408 ;;
    C.1048576) echo 1039360 ;;
    [ABEFGHIK].1048576) echo 1048576 ;;
    *) echo "" ;;
  esac
}

field() { python3 -c "import json,sys; d=json.load(sys.stdin); print(d['$1'])"; }

row() {  # row FILE EXTRA_FLAGS...
  local file=$1
  shift
  local name
  name=$(basename "$file" .csv)
  local cells=""
  local bound="" buffers=""
  for method in best-fit first-fit auto; do
    local json
    json=$("$olla" place "$file" --method "$method" --time-limit "$limit" --json "$@" 2>/dev/null) || true
    bound=$(echo "$json" | field lower_bound_bytes)
    buffers=$(echo "$json" | field buffers)
    local arena seconds optimal
    arena=$(echo "$json" | field arena_bytes)
    seconds=$(echo "$json" | field seconds)
    optimal=$(echo "$json" | field optimal)
    [ "$optimal" = "True" ] && arena="$arena*"
    cells="$cells | $arena | $(printf '%.2f' "$seconds")"
  done
  echo "| $name | $buffers | $bound | $(best_known "$name")$cells |"
}

{
  echo "# Placement benchmark"
  echo
  echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(date -u +%Y-%m-%d);"
  echo "time limit ${limit} s per run. Arena in bytes; * = proven optimal (the lower bound"
  echo "column is the best bound proven by that row's last method). Times in seconds, wall clock."
  echo
  echo "## Minimising the arena"
  echo
  echo "| instance | buffers | lower bound | best known | best-fit | s | first-fit | s | auto | s |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  for file in "$data"/minimalloc/benchmarks/challenging/*.csv "$data"/tvm_usmp/*/*.csv \
              "$data"/tflite_micro/*/*.csv "$data"/idealloc/benchmarks/*/*.csv \
              "$data"/idealloc/history/somas_tensors/*.csv; do
    row "$file"
  done
  for file in "$data"/idealloc/history/coreba/tests/data/iree/*.csv; do
    row "$file" --ignore-offsets
  done
  echo
  echo "IREE files: their offset column is IREE's own placement, so they run with --ignore-offsets."
  echo
  echo "## Deciding capacity 1048576 (MiniMalloc's challenging set)"
  echo
  echo "| instance | buffers | fits | method | seconds |"
  echo "|---|---|---|---|---|"
  total=0
  for file in "$data"/minimalloc/benchmarks/challenging/*.csv; do
    json=$("$olla" place "$file" --capacity 1048576 --time-limit "$limit" --json 2>/dev/null) || true
    seconds=$(echo "$json" | field seconds)
    total=$(python3 -c "print($total + $seconds)")
    echo "| $(basename "$file" .csv) | $(echo "$json" | field buffers) | $(echo "$json" | field fits) | $(echo "$json" | field method) | $(printf '%.2f' "$seconds") |"
  done
  echo
  echo "All 11 together: $(printf '%.1f' "$total") s."
  echo
  echo "## The location ILP on random problems (bench/random_placement.py, seeds 1-10)"
  echo
  echo "| buffers | proven optimal | slowest proof, s | ILP better than greedy |"
  echo "|---|---|---|---|"
  scratch=$(mktemp -d)
  for buffers in 10 20 30 40; do
    optimal=0 slowest=0 improved=0
    for seed in $(seq 1 10); do
      python3 bench/random_placement.py random "$buffers" "$seed" > "$scratch/random.csv"
      json=$("$olla" place "$scratch/random.csv" --method ilp --time-limit "$limit" --json)
      if [ "$(echo "$json" | field optimal)" = "True" ]; then
        optimal=$((optimal + 1))
        slowest=$(python3 -c "print(max($slowest, $(echo "$json" | field seconds)))")
      fi
      [ "$(echo "$json" | field method)" = "ilp" ] && improved=$((improved + 1))
    done
    echo "| $buffers | $optimal/10 | $(printf '%.2f' "$slowest") | $improved/10 |"
  done
  echo
  echo "## Greedy placement at scale (bench/random_placement.py stream, seed 1)"
  echo
  echo "| buffers | method | arena | lower bound | gap | seconds | peak memory, MiB |"
  echo "|---|---|---|---|---|---|---|"
  for buffers in 100000 1000000; do
    python3 bench/random_placement.py stream "$buffers" 1 > "$scratch/stream.csv"
    for method in best-fit auto; do
      json=$(/usr/bin/time -f "%M" -o "$scratch/rss" "$olla" place "$scratch/stream.csv" \
               --method "$method" --time-limit "$limit" --json)
      echo "| $buffers | $method | $(echo "$json" | field arena_bytes) |" \
           "$(echo "$json" | field lower_bound_bytes) |" \
           "$(printf '%.2f%%' "$(echo "$json" | python3 -c "import json,sys; print(100 * json.load(sys.stdin)['gap'])")") |" \
           "$(printf '%.2f' "$(echo "$json" | field seconds)") | $(( $(cat "$scratch/rss") / 1024 )) |"
    done
  done
  rm -rf "$scratch"
} > "$out"
cat "$out"
