"""The largest training batch that fits a memory, for eager PyTorch, for olla and for olla
with recomputation adding at most 10 % compute:
`python -m olla.torch.max_batch MODEL --memory M --json` on zoo models. Writes
bench/results/max_batch.md.

    .venv/bin/python bench/max_batch.py [--memory 16GiB] [--models resnet50,gpt2_small]

Each answer carries its evidence: the bytes at the batch found and at the next one.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

from machine import machine

ROOT = pathlib.Path(__file__).resolve().parents[1]
GIB = 1 << 30


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memory", default="16GiB")
    parser.add_argument("--models", default="resnet50,gpt2_small,vit_b_16,mobilenet_v2")
    arguments = parser.parse_args()
    rows = []
    for model in arguments.models.split(","):
        started = time.monotonic()
        result = subprocess.run(
            [sys.executable, "-m", "olla.torch.max_batch", model, "--memory",
             arguments.memory, "--json"], capture_output=True, text=True, cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT / "python")})
        if result.returncode != 0:
            raise SystemExit(f"{model}: {result.stderr.strip()}")
        answer = json.loads(result.stdout)
        answer["wall"] = time.monotonic() - started
        rows.append(answer)
        print(model, answer["eager"]["batch"], answer["olla"]["batch"],
              answer["olla_recompute"]["batch"], flush=True)

    def cells(fit):
        following = "" if fit["next_bytes"] is None else f"{fit['next_bytes'] / GIB:.3f}"
        fitted = "" if fit["bytes"] is None else f"{fit['bytes'] / GIB:.3f}"
        return f"{fit['batch']} | {fitted} | {following}"

    lines = [
        f"# The largest batch in {arguments.memory}",
        "",
        "`bench/max_batch.py`: `python -m olla.torch.max_batch MODEL --memory "
        f"{arguments.memory}` (docs/torch.md): the training step captured at each batch "
        "tried; *eager* is the CUDA caching allocator's reserved bytes for the eager "
        "order (olla's model of it, persistent state included), *olla* the persistent "
        "state plus the arena of olla's plan (512-byte alignment, copy elimination). "
        "Tensors only: no CUDA context or library workspaces. GiB at the batch found "
        "and at the next one, which does not fit. *olla, recompute* adds recomputation "
        "where order and layout alone do not fit (budget mode, docs/budget.md), at most "
        "10 % more compute (estimated from shapes; the compute column is at the batch "
        "found; its next GiB is olla's without recomputation at the next batch, where "
        f"no plan within the overhead fits). Machine: {machine()}.",
        "",
        "| model | eager batch | GiB | next GiB | olla batch | GiB | next GiB | "
        "olla, recompute batch | GiB | next GiB | compute added | olla / eager | "
        "recompute / eager | search s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        eager = r["eager"]["batch"]
        ratio = r["olla"]["batch"] / eager if eager else 0
        recompute = r["olla_recompute"]
        added = recompute.get("added_compute") or 0.0
        lines.append(f"| {r['model']} | {cells(r['eager'])} | {cells(r['olla'])} | "
                     f"{cells(recompute)} | {100 * added:.1f} % | {ratio:.2f} | "
                     f"{recompute['batch'] / eager if eager else 0:.2f} | "
                     f"{r['wall']:.0f} |")
    out = ROOT / "bench/results/max_batch.md"
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
