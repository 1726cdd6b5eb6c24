#!/usr/bin/env bash
# Benchmarks of the foundation, recorded with the machine they ran on:
#   - Google Benchmark: loading, lower bounds and the eager simulation of generated
#     training-like graphs of 1k, 10k and 100k ops;
#   - end to end: `olla generate` then `olla simulate` of a 100,000-op graph, timed by
#     /usr/bin/time.
# Writes bench/results/foundation.md. Usage: bench/run.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
cd "$(dirname "$0")/.."
out=bench/results/foundation.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

olla="$build/bin/olla"
"$olla" generate --ops 100000 --seed 1 -o "$work/g100k.json.gz" 2>/dev/null
/usr/bin/time -f "%e %M" -o "$work/time" "$olla" simulate "$work/g100k.json.gz" > "$work/simulate.txt"
read -r seconds max_kb < "$work/time"
"$build/bin/foundation_bench" --benchmark_format=console --benchmark_color=false \
  > "$work/bench.txt" 2>/dev/null

{
  echo "# Foundation benchmarks"
  echo
  echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),"
  echo "$(free -g | awk '/Mem:/ {print $2}') GiB; $(date -u +%Y-%m-%d). Shared and noisy: compare ratios, not absolutes."
  echo
  echo "## End to end: \`olla simulate\` on a generated 100,000-op graph"
  echo
  echo "Wall time ${seconds} s, peak memory $((max_kb / 1024)) MiB (load, validate, timeline, caching"
  echo "allocator replay, both lower bounds, report)."
  echo
  echo '```'
  cat "$work/simulate.txt"
  echo '```'
  echo
  echo "## Stages (Google Benchmark; n = ops of a generated graph)"
  echo
  echo '```'
  grep -E '^(Benchmark|---|BM_)' "$work/bench.txt"
  echo '```'
} > "$out"
cat "$out"
bash bench/placement.sh "$build"
/usr/bin/python3 bench/schedule.py --olla "$build/bin/olla"
/usr/bin/python3 bench/zoo.py --olla "$build/bin/olla"
/usr/bin/python3 bench/scale.py --olla "$build/bin/olla"
/usr/bin/python3 bench/synthetic.py --olla "$build/bin/olla"
