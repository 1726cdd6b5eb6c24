#!/usr/bin/env bash
# The demo: olla's main job first. `olla optimize` on the zoo's resnet18 training step
# at batch 32: the order and the offsets, checked, and what they save against eager
# PyTorch; `olla check` verifies the written plan independently; GPT-2 small fitted to
# three fifths of its eager peak by recomputation (budget mode); then olla.torch
# trains a torchvision resnet18 on the CPU in a plan of its own, memory measured. Then
# the parts on their own: OLLA's Figure 3 (eager order 60 MiB, best order 45 MiB)
# simulated, checked and scheduled, and a training-step trace placed greedily and
# exactly.
set -euo pipefail
olla=${1:-build/bin/olla}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() {
  echo "\$ olla $*"
  "$olla" "$@"
  echo
}
# What a user keeps: the plan, the Markdown report and the picture, beside the build.
out="$(dirname "$(dirname "$olla")")/demo"
mkdir -p "$out"
run optimize models/resnet18.train.b32.json.gz -o "$out/resnet18.plan.json" \
  --report "$out/resnet18.report.md" --svg "$out/resnet18.svg"
run check models/resnet18.train.b32.json.gz "$out/resnet18.plan.json"
echo "olla's plan runs resnet18's training step at batch 32 in a third less memory than"
echo "eager PyTorch's caching allocator reserves. Written: $out/resnet18.plan.json, the"
echo "report as Markdown ($out/resnet18.report.md) and a picture of memory over the step,"
echo "eager beside olla ($out/resnet18.svg; scripts/render-svg.sh makes a PNG of it)."
echo
# Budget mode: GPT-2 small's eager order is already at the bound of every order, so
# three fifths of its eager peak (39366303748 B) need recomputation.
run optimize models/gpt2_small.train.b32.json.gz --memory-budget 23619782248 \
  -o "$out/gpt2_small.budget.plan.json"
run check models/gpt2_small.train.b32.json.gz "$out/gpt2_small.budget.plan.json"
echo "No order fits GPT-2 small's step at batch 32 in three fifths of eager's peak;"
echo "recomputing activations in the backward pass does (docs/budget.md), and olla check"
echo "verifies the plan with its recomputations against the original graph."
echo
# The same job inside PyTorch: a torchvision resnet18 trained with the user's own
# torch.optim.SGD in olla's plan, on the CPU, memory measured before and after.
echo "\$ .venv/bin/python examples/train_with_olla.py --batch 8 --image 64 --steps 3"
"${PYTHON:-.venv/bin/python}" examples/train_with_olla.py --batch 8 --image 64 --steps 3
echo
run simulate examples/figure3.json
run check examples/figure3.json examples/figure3.eager.plan.json
run check examples/figure3.json examples/figure3.reordered.plan.json
echo "Reordering Figure 3 (v1, v3, v2, v4 -> v1, v2, v3, v4) lowers the peak from 60 MiB to"
echo "45 MiB, the lower bound; both plans place every tensor with no fragmentation."
echo
run schedule examples/figure3.json -o "$work/figure3.order.json"
run check examples/figure3.json "$work/figure3.order.json"
run schedule models/resnet18.train.b1.json.gz -o "$work/resnet18.order.json"
run check models/resnet18.train.b1.json.gz "$work/resnet18.order.json"
run place examples/placement/training_step.csv --method best-fit
run place examples/placement/training_step.csv -o "$work/training_step.placed.csv"
echo "On a training-step trace (bench/random_placement.py training 60 1), greedy best fit"
echo "leaves the arena 3.2 % above the live-bytes bound; the exact search reaches the bound."
