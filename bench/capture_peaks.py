#!/usr/bin/env python3
"""How faithful are the zoo graphs? Per zoo model, train mode at batch 32: the eager live
peak `olla simulate` computes from the captured graph, next to the peak of live CPU
allocations measured during a real eager run of the same step (torch.profiler memory
events; parameters, optimizer state and batch allocated before measuring).

    bench/capture_peaks.py [--olla build/bin/olla] [--only NAME ...]

Writes bench/results/capture.md. Models whose real run would not fit in this machine's
memory are listed as skipped. Takes minutes per large model on two cores.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import torch  # noqa: E402

from olla import zoo  # noqa: E402
from olla.capture import capture_training_step, save, verify  # noqa: E402

BATCH = 32


def memory_bytes():
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--olla", default=str(ROOT / "build" / "bin" / "olla"))
    parser.add_argument("--only", nargs="*")
    arguments = parser.parse_args()
    torch.set_num_threads(os.cpu_count())
    rows = []
    for entry in zoo.ZOO.values():
        if arguments.only and entry.name not in arguments.only:
            continue
        torch.manual_seed(0)
        work = zoo.workload(entry.name, BATCH, "train")
        graph = capture_training_step(work.model, work.inputs, work.loss_fn, work.targets,
                                      optimizer=entry.optimizer, name=entry.name)
        with tempfile.TemporaryDirectory() as directory:
            path = pathlib.Path(directory) / "graph.json.gz"
            save(graph, path)
            report = json.loads(subprocess.run(
                [arguments.olla, "simulate", str(path), "--json"], check=True,
                capture_output=True, text=True).stdout)
        predicted = report["eager_peak_live_bytes"]
        # Persistent state twice (the model's and the measured copy), the live peak, and
        # a margin for kernel temporaries.
        needed = 2 * report["persistent_bytes"] + 1.25 * predicted
        if needed > 0.85 * memory_bytes():
            rows.append((entry.name, predicted, None, None))
            print(f"{entry.name}: skipped, needs about {needed / 2**30:.0f} GiB", flush=True)
            continue
        started = time.perf_counter()
        measured = verify.measure_eager_peak(graph)
        seconds = time.perf_counter() - started
        rows.append((entry.name, predicted, measured, seconds))
        print(f"{entry.name}: graph {predicted} measured {measured} "
              f"({measured / predicted - 1:+.2%}) {seconds:.0f} s", flush=True)
        del graph, work

    lines = [
        "# Capture faithfulness: eager peaks, graph against a real run",
        "",
        f"Machine: {os.cpu_count()} cores, {memory_bytes() / 2**30:.0f} GiB, CPU run, "
        f"torch {torch.__version__}; {time.strftime('%Y-%m-%d', time.gmtime())}. "
        "Train mode, batch 32 (`bench/capture_peaks.py`).",
        "",
        "| model | graph eager peak (MiB) | measured peak (MiB) | measured / graph | run (s) |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, predicted, measured, seconds in rows:
        if measured is None:
            lines.append(f"| {name} | {predicted / 2**20:,.1f} | does not fit | | |")
        else:
            lines.append(f"| {name} | {predicted / 2**20:,.1f} | {measured / 2**20:,.1f} | "
                         f"{measured / predicted:.3f} | {seconds:.0f} |")
    lines.append("")
    (ROOT / "bench" / "results" / "capture.md").write_text("\n".join(lines))


if __name__ == "__main__":
    main()
