#!/usr/bin/env bash
# Benchmarks of the foundation, recorded with the machine they ran on:
#   - Google Benchmark: loading, lower bounds and the eager simulation of generated
#     training-like graphs of 1k, 10k and 100k ops;
#   - end to end: `olla generate` then `olla simulate` of a 100,000-op graph, timed by
#     /usr/bin/time;
#   - the min-cut bound's max flow, LEMON against Boost.Graph (max_flow.md);
#   - the placement, schedule, zoo, scale and hard synthetic graph benchmarks, the
#     largest batches, the limits, budget mode (remat.py, remat_blocks.py, remat_runtime.py,
#     checkmate.py) and
#     olla.torch on models and loops outside the tests (loops.py), and olla beside
#     what a PyTorch user would pick instead (compare_torch.py): their scripts; on a
#     machine with a GPU, the device check (gpu_check.py).
# Writes bench/results/foundation.md. Usage: bench/run.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
cd "$(dirname "$0")/.."
out=bench/results/foundation.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

olla="$build/bin/olla"
python=${PYTHON:-.venv/bin/python}  # The checkout's environment (scripts/python-env.sh).
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

# The min-cut bound's max flow: LEMON against Boost.Graph on the same networks.
"$build/bin/max_flow_bench" --benchmark_format=console --benchmark_color=false \
  > "$work/flow.txt" 2>/dev/null
{
  echo "# Max flow for the min-cut bound"
  echo
  echo "\`bench/max_flow_bench.cc\`: the networks of the min-cut bound (src/olla/analysis/min_cut_bound.h)"
  echo "at the 16 ops of largest eager live bytes of five zoo training graphs, solved by each"
  echo "library (building its graph included); every solver gives the same flow. olla uses"
  echo "LEMON's Preflow. Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //');"
  echo "$(date -u +%Y-%m-%d). Times are for all 16 networks of a graph."
  echo
  echo '```'
  grep -E '^(Benchmark|---|lemon|boost)' "$work/flow.txt"
  echo '```'
} > bench/results/max_flow.md
cat bench/results/max_flow.md
bash bench/placement.sh "$build"
"$python" bench/schedule.py --olla "$build/bin/olla"
"$python" bench/zoo.py --olla "$build/bin/olla"
"$python" bench/scale.py --olla "$build/bin/olla"
"$python" bench/synthetic.py --olla "$build/bin/olla"
"$python" bench/max_batch.py
"$python" bench/limits.py --olla "$build/bin/olla"
"$python" bench/remat.py --olla "$build/bin/olla"
"$python" bench/remat_blocks.py --build "$build"
"$python" bench/checkmate.py --olla "$build/bin/olla"
"$python" bench/remat_runtime.py
"$python" bench/loops.py
"$python" bench/compare_torch.py
# The GPU device check, where this machine has a GPU (docs/gpu.md; elsewhere
# scripts/gpu-check runs it on a GPU machine).
if "$python" -c "import sys, torch; sys.exit(not torch.cuda.is_available())"; then
  "$python" bench/gpu_check.py --max-batch
else
  echo "bench: no GPU here: bench/gpu_check.py skipped (scripts/gpu-check runs it on one)"
fi
