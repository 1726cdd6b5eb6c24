"""Do the zoo's captured graphs declare every write and alias their ops really make?
Per zoo model, train mode at its smallest batch: olla.capture.verify.check_storage runs
the traced graph op by op on real tensors and checks each declared-fresh result, each
alias and each input not declared written against real storages and values.

    .venv/bin/python bench/zoo_storage.py [--only NAME ...]

Writes bench/results/storage.md. An op whose schema hides a write (as torch 1.13's
native_batch_norm did) shows up here first; capture/storage.py corrects it.
"""

import argparse
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import torch  # noqa: E402

from olla import zoo  # noqa: E402
from olla.capture import capture_training_step, verify  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*")
    names = parser.parse_args().only or list(zoo.ZOO)
    rows = []
    for name in names:
        entry = zoo.ZOO[name]
        batch = entry.min_train_batch
        torch.manual_seed(0)
        work = zoo.workload(name, batch, "train")
        start = time.time()
        graph = capture_training_step(work.model, work.inputs, work.loss_fn,
                                      targets=work.targets, optimizer=entry.optimizer,
                                      name=name, copy_elimination=True)
        try:
            verify.check_storage(graph)
            verdict = "faithful"
        except verify.FaithfulnessError as error:
            verdict = f"**{error}**"
        rows.append(f"| {name} | {batch} | {entry.optimizer} | {len(graph.ops)} | "
                    f"{verdict} | {time.time() - start:.1f} |")
        print(rows[-1], flush=True)
    out = ROOT / "bench" / "results" / "storage.md"
    out.write_text("\n".join([
        "# Storage semantics of the zoo's graphs",
        "",
        f"PyTorch {torch.__version__}, CPU. `.venv/bin/python bench/zoo_storage.py`: "
        "each zoo model's training step (its smallest batch, copy elimination on) run op "
        "by op on real tensors by `olla.capture.verify.check_storage`.",
        "",
        "| model | batch | optimizer | ops | storage check | seconds |",
        "|---|---:|---|---:|---|---:|",
        *rows, ""]))


if __name__ == "__main__":
    main()
