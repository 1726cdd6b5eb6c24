"""Budget mode run for real: olla.torch.optimize(..., memory_budget=B) on the
transformers of bench/remat.py, at batches this machine's memory and CPUs allow, three
olla steps beside three eager PyTorch steps on a copy, for three budgets: half the eager
activation peak (the budgets of bench/remat.py), 40 % of it, and half the proven bound of
every order (which only recomputation meets). Writes bench/results/remat_runtime.md.

    .venv/bin/python bench/remat_runtime.py [--models gpt2_small:1,vit_b_16:4,...]

Per model and budget (from the report of an unbudgeted plan of the same step, so that
both count each op's scratch as its workspace): the plan's arena and recomputations, what the planned arena served and what fell
through it (allocations the plan did not know, counted by olla's allocator), whether
the three losses and every parameter, buffer and optimizer state after them equal
eager PyTorch's bit for bit, and the seconds of a step (the median of three) for both.
"""

import argparse
import copy
import pathlib
import statistics
import sys
import time

import torch

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import olla  # noqa: E402
import olla.torch as olla_torch  # noqa: E402
from olla import zoo  # noqa: E402
from olla.torch.memory import eager_step  # noqa: E402

from machine import machine  # noqa: E402

DEFAULT = "gpt2_small:1,roberta_base:2,vit_b_16:4,transformer:8,swin_t:4,vit_b_32:32"
# (the unbudgeted report's figure, the share of it): the budgets of each model.
BUDGETS = [("eager_peak_live_bytes", 0.5), ("eager_peak_live_bytes", 0.4),
           ("lower_bound_bytes", 0.5)]
MIB = 1 << 20


def same_state(model, optimizer, reference, reference_optimizer):
    for a, b in zip(model.state_dict().values(), reference.state_dict().values()):
        if not torch.equal(a, b):
            return False
    for p, q in zip(model.parameters(), reference.parameters()):
        ours = {k: v for k, v in optimizer.state[p].items() if v is not None}
        theirs = {k: v for k, v in reference_optimizer.state[q].items() if v is not None}
        if ours.keys() != theirs.keys():
            return False
        if any(not torch.equal(ours[k], theirs[k]) for k in ours):
            return False
    return True


def unbudgeted_report(name, batch, time_limit):
    """The report of an unbudgeted plan of the step: the budgets come from the graph
    olla plans, the captured step with each op's scratch, measured by olla.torch's
    calibration run, as its workspace."""
    torch.manual_seed(0)
    work = zoo.workload(name, batch, "train")
    return olla_torch.optimize(work.model, list(work.inputs), work.loss_fn,
                               torch.optim.AdamW(work.model.parameters(), lr=1e-4),
                               targets=list(work.targets), time_limit=time_limit).report


def row(name, batch, unbudgeted, budget_of, share, time_limit):
    torch.manual_seed(0)
    work = zoo.workload(name, batch, "train")
    reference = copy.deepcopy(work.model)
    optimizer = torch.optim.AdamW(work.model.parameters(), lr=1e-4)
    reference_optimizer = torch.optim.AdamW(reference.parameters(), lr=1e-4)
    inputs, targets = list(work.inputs), list(work.targets)
    eager_peak = unbudgeted["eager_peak_live_bytes"]
    budget = int(unbudgeted[budget_of] * share)
    started = time.monotonic()
    base = {"model": name, "batch": batch, "eager_peak": eager_peak, "budget": budget,
            "budget_of": f"{100 * share:.0f} % of the "
                         f"{'eager peak' if budget_of == 'eager_peak_live_bytes' else 'bound'}"}
    try:
        step = olla_torch.optimize(work.model, inputs, work.loss_fn, optimizer,
                                   targets=targets, memory_budget=budget,
                                   time_limit=time_limit)
    except olla.NoPlanError as error:  # The message says what was found, or the proof.
        return {**base, "error": str(error)}
    planning_seconds = time.monotonic() - started
    equal = True
    olla_seconds, eager_seconds, stats = [], [], []
    for seed in range(3):
        torch.manual_seed(seed)
        started = time.monotonic()
        loss = step(*inputs, targets=targets)
        olla_seconds.append(time.monotonic() - started)
        stats.append(step.last_stats)
        torch.manual_seed(seed)
        started = time.monotonic()
        expected = eager_step(reference, reference_optimizer, work.loss_fn, inputs, targets)
        eager_seconds.append(time.monotonic() - started)
        equal = equal and torch.equal(loss, expected)
    equal = equal and same_state(work.model, optimizer, reference, reference_optimizer)
    return {**base, "arena": step.plan.arena_bytes, "recomputed": len(step.plan.recompute),
            "added": step.report.get("added_compute", 0.0),
            "served": max(s.served for s in stats),
            "fell_through": max(s.fell_through for s in stats),
            "fall_through_peak": max(s.fall_through_peak_bytes for s in stats),
            "equal": equal, "planning": planning_seconds,
            "olla_seconds": statistics.median(olla_seconds),
            "eager_seconds": statistics.median(eager_seconds)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=DEFAULT)
    parser.add_argument("--time-limit", type=float, default=60)
    arguments = parser.parse_args()
    rows = []
    for item in arguments.models.split(","):
        name, batch = item.split(":")
        unbudgeted = unbudgeted_report(name, int(batch), arguments.time_limit)
        for budget_of, share in BUDGETS:
            rows.append(row(name, int(batch), unbudgeted, budget_of, share,
                            arguments.time_limit))
            print(rows[-1], flush=True)
    out = ROOT / "bench" / "results" / "remat_runtime.md"
    out.write_text(markdown(rows))
    print(out.read_text())


def markdown(rows):
    lines = [
        "# Budget mode run for real",
        "",
        f"`bench/remat_runtime.py` on {machine()} (CPU, torch "
        f"{torch.__version__}, AdamW): `olla.torch.optimize(..., memory_budget=B)` with "
        "B half or 40 % of the eager peak live bytes of the captured step, or half the "
        "proven bound of every order without recomputation, three olla steps beside "
        "three eager PyTorch steps on a copy of the model. *Fell through*: allocations "
        "outside the plan (most per step, and their peak). *Equal*: the three losses and "
        "every parameter, buffer and optimizer state after them, bit for bit. Seconds: "
        "the median step (this machine is shared: read them as indications). The "
        "eager peak and the bound are those of the graph olla plans, each op's measured "
        "scratch included as its workspace.",
        "",
        "| model | batch | eager peak | budget | arena | recomputed ops | compute added "
        "(estimate) | fell through | fall-through peak | equal | plan s | eager step s | "
        "olla step s |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|---|---:|---:|---:|",
    ]
    for r in rows:
        if "error" in r:
            lines.append(
                f"| {r['model']} | {r['batch']} | {r['eager_peak'] / MIB:.1f} MiB | "
                f"{r['budget'] / MIB:.1f} MiB ({r['budget_of']}) | no plan: "
                f"{r['error'].split(': ', 1)[1]} | | | | | | | | |")
            continue
        lines.append(
            f"| {r['model']} | {r['batch']} | {r['eager_peak'] / MIB:.1f} MiB | "
            f"{r['budget'] / MIB:.1f} MiB ({r['budget_of']}) | {r['arena'] / MIB:.1f} MiB | {r['recomputed']} | "
            f"{100 * r['added']:.1f} % | {r['fell_through']} | "
            f"{r['fall_through_peak'] / MIB:.2f} MiB | {'yes' if r['equal'] else 'NO'} | "
            f"{r['planning']:.1f} | {r['eager_seconds']:.2f} | {r['olla_seconds']:.2f} |")
    lines += [
        "",
        "From torch 1.13 to 2.11 (2026-12-01 against 2026-12-02): every step that ran is "
        "still equal bit for bit, and nothing falls through any more (roberta_base's "
        "one 1.5 MiB allocation did under 1.13). The graphs "
        "changed: the training graphs use PyTorch's fused CPU flash attention "
        "(models/README.md), so the eager peaks moved (gpt2_small 1747 -> 1220 MiB, "
        "vit_b_16 552 -> 467 MiB) and GPT-2's half-peak budget is now below what budget "
        "mode reaches (its smallest arena is 55 % of the peak; bench/results/remat.md: "
        "it stops at 53.7 % of its bound-limited peak). *plan s* now includes the "
        "self-check, one more eager step.",
        "",
        "2026-12-06 against 2026-12-02: the search now runs backward ops again and goes "
        "on over the whole step with the time it has left, so *plan s* is the 60 s limit "
        "wherever recomputation is needed, and the compute added fell where the plan "
        "changed (vit_b_16 at half its peak: 4.1 -> 2.4 %). At 40 % of the eager peak "
        "four of the six fit, every step equal bit for bit; roberta_base at batch 2 "
        "(floor 44 % of its peak) and gpt2_small at batch 1 (floor 52 %, at the "
        "log-softmax backward over its 50,257-token vocabulary; also above half its "
        "peak) are refuted at once by the recompute floor. The transformer at half its "
        "bound: smallest arena 54.7 MB, against 68.2 MB before.",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
