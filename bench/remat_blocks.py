"""Repeated blocks decided once: budget mode's search on transformers of 12, 24 and 48
layers, with the blocks that repeat one another decided together first (what `olla
optimize` does) and block by block only (how it searched before), aimed at two thirds
and at half of the eager peak: the measurements until a plan reaches the target (the
greedy descents, no limit), and what the whole search (descents, pruning and the
large-neighbourhood search) reaches within 10 seconds. Writes
bench/results/remat_blocks.md.

    .venv/bin/python bench/remat_blocks.py [--build build]

The deep models are the zoo's GPT-2 small (olla.zoo.Gpt2Like) with 12, 24 and 48
layers, batch 4, 512 tokens and an 8,192-token vocabulary (so that the layers'
activations, not the logits, make the peak), captured here with SGD; the other rows are
zoo graphs.
"""

import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

import torch
import torch.nn.functional as F

from machine import machine

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from olla import zoo  # noqa: E402
from olla.capture import capture_training_step, save  # noqa: E402

FRACTIONS = [2 / 3, 1 / 2]
SECONDS = 10
ZOO_GRAPHS = ["gpt2_small.train.b32", "vit_b_16.train.b32",
              "roberta_base.train.b32", "transformer.train.b32"]
DEPTHS = [12, 24, 48]
BATCH, TOKENS, VOCABULARY = 4, 512, 8192


def capture_gpt(layers, path):
    torch.manual_seed(0)
    model = zoo.Gpt2Like(vocab=VOCABULARY, positions=TOKENS, layers=layers)
    tokens = torch.randint(0, VOCABULARY, (BATCH, TOKENS))
    targets = torch.randint(0, VOCABULARY, (BATCH, TOKENS))
    graph = capture_training_step(
        model, (tokens,), lambda logits, labels: F.cross_entropy(
            logits.flatten(0, 1), labels.flatten()), (targets,), optimizer="sgd",
        name=f"gpt2_like_{layers}_layers.train.b{BATCH}")
    save(graph, path)


def markdown(rows):
    lines = [
        "# Repeated blocks decided once",
        "",
        f"`bench/remat_blocks.py` on {machine()}: `build/bin/remat_blocks_bench FRACTION "
        f"{SECONDS}`, budget mode's search on the eager order, with the repeated blocks "
        "decided together first (olla's search) and block by block only. *To reach*: "
        "measurements (one expansion and timeline each) until a plan first reaches the "
        "target, in the greedy descents without a limit. *In 10 s*: the compute the whole "
        f"search's plan adds within {SECONDS} seconds (descents, pruning, "
        "large-neighbourhood search), of the step's (estimated from shapes), or the peak "
        "it got to, of the eager peak, when it found none.",
        "",
        "| graph | ops | blocks | target | together: to reach | in 10 s | "
        "block by block: to reach | in 10 s | fewer measurements |",
        "|---|---|---|---|---|---|---|---|---|",
    ]

    def reach(run):
        return str(run["measurements_to_reach"]) if run["reached"] else "not reached"

    def within(run, eager):
        if not run["reached"]:
            return f"no plan (peak {100 * run['peak_bytes'] / eager:.0f} %)"
        return f"{100 * run['added_compute']:.2f} %"

    for r in rows:
        tied, untied = r["tied"], r["untied"]
        ratio = (f"{untied['measurements_to_reach'] / tied['measurements_to_reach']:.1f}x"
                 if tied["reached"] and untied["reached"] else "-")
        lines.append(
            f"| {r['graph']} | {r['ops']} | {r['blocks']} | "
            f"{100 * r['target'] / r['eager_peak']:.0f} % | {reach(tied)} | "
            f"{within(r['tied_search'], r['eager_peak'])} | {reach(untied)} | "
            f"{within(r['untied_search'], r['eager_peak'])} | {ratio} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(ROOT / "build"))
    args = parser.parse_args()
    bench = pathlib.Path(args.build) / "bin" / "remat_blocks_bench"
    with tempfile.TemporaryDirectory() as directory:
        paths = [ROOT / "models" / f"{name}.json.gz" for name in ZOO_GRAPHS]
        for layers in DEPTHS:
            path = pathlib.Path(directory) / f"gpt2_like_{layers}.json.gz"
            capture_gpt(layers, path)
            paths.append(path)
        rows = []
        for fraction in FRACTIONS:
            for path in paths:
                result = subprocess.run(
                    [str(bench), f"{fraction:.4f}", str(SECONDS), str(path)],
                    capture_output=True, text=True, check=True)
                rows.append(json.loads(result.stdout))
                print(rows[-1]["graph"], f"{fraction:.2f}", "done", flush=True)
    out = ROOT / "bench" / "results" / "remat_blocks.md"
    out.write_text(markdown(rows))
    print(out.read_text())


if __name__ == "__main__":
    main()
