"""The device check of olla's planned arena on a GPU (docs/gpu.md): each case trained
eager and with olla on the same initial weights, batch and optimizer; one JSON and one
Markdown table. scripts/gpu-check builds olla on the GPU machine and runs it.

    python bench/gpu_check.py [--out DIR] [--quick] [--device cuda|cpu] [--max-batch]

Cases: resnet50 at batch 64 (AdamW); a GPT-2-small-sized decoder (the zoo's, 256
tokens) under bf16 autocast with AdamW fused and unfused. --quick: a two-layer decoder
at batch 2, without autocast and unfused, and under bf16 autocast and fused. Per case:
  - eager: the peaks above the model's state of bytes allocated (max_memory_allocated),
    requested (before the caching allocator's rounding) and reserved, without and with
    expandable_segments; olla: the same statistics under olla's allocator (the arena is
    one allocation of the native allocator, so they count it), and olla's own: arena,
    fall-through peak and count, planned requests blocked or on another stream;
  - olla's models of the eager step: its live bytes and the caching allocator's
    reserved bytes, beside eager's measured requested and reserved peaks;
  - the target: olla's peak (arena + fall-through) against eager's allocated peak times
    (1 - the plan's predicted saving + 0.02), and against eager's reserved peaks;
  - three steps from the same weights, eager and olla: losses and parameters compared
    bitwise, under torch.use_deterministic_algorithms;
  - step times, the median of TIMED steps each between CUDA events, eager, olla, and
    olla replaying its step as a CUDA graph (cuda_graph=True; its steps compared
    bitwise too, and how often it captured and replayed);
  - with --max-batch, for the first case, the largest batch of LADDER that runs in
    16 GiB, eager and olla, each found by running it under
    torch.cuda.set_per_process_memory_fraction.
On the CPU (--device cpu, which the test suite runs with --quick, so that the script
cannot rot unnoticed) the peaks are those of olla's counting allocator and the CUDA-only
figures are None.
"""

import argparse
import copy
import json
import os
import pathlib
import statistics
import sys
import time

# Before CUDA initializes: cuBLAS's deterministic workspace, for bitwise comparisons.
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

import torch  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "bench"))

import olla.torch as olla_torch  # noqa: E402
from olla import zoo  # noqa: E402
from olla.capture.loop import Loop  # noqa: E402
from olla.torch import arena as arenas  # noqa: E402

from compare_torch import _next_token_loss, build_workload  # noqa: E402

MIB = 1 << 20
GIB = 1 << 30
STEPS = 3  # compared bitwise
WARMUP = 2
TIMED = 5
LADDER = (64, 96, 128, 160, 192, 256, 320, 384, 512)
CASES = [("resnet50", 64, None, False), ("gpt2_small", 16, torch.bfloat16, False),
         ("gpt2_small", 16, torch.bfloat16, True)]
QUICK = [("decoder_tiny", 2, None, False), ("decoder_tiny", 2, torch.bfloat16, True)]


def _workload(name, batch, device):
    """compare_torch's workloads, and a two-layer decoder of 64 tokens for --quick."""
    if name != "decoder_tiny":
        return build_workload(name, batch, device)
    torch.manual_seed(0)
    model = zoo.Gpt2Like(vocab=512, positions=64, width=64, layers=2, heads=4)
    tokens, labels = (torch.randint(0, 512, (batch, 64)) for _ in range(2))
    return zoo.Workload(model.to(device), (tokens.to(device),), (labels.to(device),),
                        _next_token_loss)


class Case:
    """One model, batch, autocast dtype and AdamW flavour, on one device."""

    def __init__(self, model, batch, autocast, fused, device):
        self.name, self.batch, self.autocast, self.fused = model, batch, autocast, fused
        self.device = device
        self.work = _workload(model, batch, device)
        self.initial = copy.deepcopy(self.work.model)
        self.loop = Loop(1, autocast, None)

    def label(self):
        amp = f", {str(self.autocast).replace('torch.', '')} autocast" if self.autocast else ""
        return (f"{self.name} b{self.batch}{amp}, AdamW"
                f"{' fused' if self.fused else ''}")

    def fresh(self):
        """A copy of the initial model and an AdamW over it."""
        model = copy.deepcopy(self.initial)
        return model, torch.optim.AdamW(model.parameters(), lr=1e-4, fused=self.fused)

    def eager(self, model, optimizer):
        work = self.work
        return lambda: self.loop.eager_step(model, optimizer, work.loss_fn,
                                            list(work.inputs), list(work.targets), None)

    def olla(self, model, optimizer, limits, cuda_graph=False):
        work = self.work
        step = olla_torch.optimize(model, list(work.inputs), work.loss_fn, optimizer,
                                   targets=list(work.targets), autocast=self.autocast,
                                   cuda_graph=cuda_graph, **limits)
        return step, lambda: step(*work.inputs, targets=list(work.targets))


def _synchronize(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _peaks(device, run, arena=None):
    """Runs `run` once; the peaks above the model's state of bytes allocated, requested
    (before the caching allocator's rounding) and reserved, on CUDA; on the CPU, where
    the other two are None, live bytes through the counting allocator. For an olla step,
    `arena` is its arena's bytes: allocated before the step and counted in it (on the
    CPU, where the step installs its own arena, its stats count it: None here)."""
    if device.type == "cpu":
        if arena is not None:
            run()
            return {"allocated": None, "requested": None, "reserved": None}
        with arenas.counting() as stats:
            run()
        return {"allocated": stats().fall_through_peak_bytes, "requested": None,
                "reserved": None}
    _synchronize(device)
    torch.cuda.reset_peak_memory_stats(device)
    before = torch.cuda.memory_stats(device)
    run()
    _synchronize(device)
    after = torch.cuda.memory_stats(device)
    state = before["allocated_bytes.all.current"] - (arena or 0)
    requested_state = before["requested_bytes.all.current"] - (arena or 0)
    return {"allocated": after["allocated_bytes.all.peak"] - state,
            "requested": after["requested_bytes.all.peak"] - requested_state,
            "reserved": after["reserved_bytes.all.peak"] - state}


def _median_seconds(device, run, count=TIMED):
    times = []
    for _ in range(count):
        if device.type == "cuda":
            start, end = (torch.cuda.Event(enable_timing=True) for _ in range(2))
            start.record()
            run()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / 1e3)
        else:
            began = time.perf_counter()
            run()
            times.append(time.perf_counter() - began)
    return statistics.median(times)


def _expandable(device, enabled):
    if device.type == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.memory._set_allocator_settings(
            f"expandable_segments:{'True' if enabled else 'False'}")


def _equal_steps(case, limits, cuda_graph=False):
    """STEPS steps eager and as many with olla from the same weights: (whether every
    loss and parameter is bitwise equal, the olla step object and its step function).
    With `cuda_graph`, olla replays its step as a CUDA graph once it is steady."""
    model, optimizer = case.fresh()
    eager = case.eager(model, optimizer)
    eager_losses = [eager().detach() for _ in range(STEPS)]
    olla_model, olla_optimizer = case.fresh()
    step, run = case.olla(olla_model, olla_optimizer, limits, cuda_graph)
    losses = [run() for _ in range(STEPS)]
    equal = (all(torch.equal(a, b) for a, b in zip(losses, eager_losses))
             and all(torch.equal(p, q) for p, q in zip(olla_model.parameters(),
                                                          model.parameters())))
    return equal, step, run


def _fits(device, run):
    """Whether `run()` (planning included, for olla) runs without running out of
    device memory."""
    try:
        run()
        _synchronize(device)
        return True
    except torch.OutOfMemoryError:
        return False
    finally:
        torch.cuda.empty_cache()


def _max_batch(case, limits, memory=16 * GIB):
    """The largest batch of LADDER that runs in `memory`, eager and olla, each tried by
    running a step (olla's: planning it first) with the caching allocator capped."""
    device = case.device
    total = torch.cuda.get_device_properties(device).total_memory
    largest = {"eager": None, "olla": None}
    trying = list(largest)  # Each kind until a batch does not fit.
    torch.cuda.set_per_process_memory_fraction(memory / total, device)
    try:
        for batch in LADDER:
            if not trying:
                break
            trial = Case(case.name, batch, case.autocast, case.fused, device)
            for kind in list(trying):
                model, optimizer = trial.fresh()
                if kind == "eager":
                    fits = _fits(device, trial.eager(model, optimizer))
                else:
                    fits = _fits(device, lambda: trial.olla(model, optimizer, limits)[1]())
                if fits:
                    largest[kind] = batch
                else:
                    trying.remove(kind)
                del model, optimizer
    finally:
        torch.cuda.set_per_process_memory_fraction(1.0, device)
    return largest


def check_case(case, limits, max_batch, timed=TIMED):
    """One case's row. limits: olla's planning limits (time_limit or work_limit)."""
    device = case.device
    row = {"case": case.label(), "model": case.name, "batch": case.batch,
           "autocast": str(case.autocast) if case.autocast else None, "fused": case.fused,
           "device": str(device)}
    equal, step, run = _equal_steps(case, limits)
    row["equal_steps"] = STEPS
    row["bitwise_equal"] = equal
    row["predicted_saving"] = step.predicted_saving()
    # olla's models of the eager step (its graph in eager order): live bytes, and the
    # caching allocator's reserved bytes (simulation/caching_allocator.h, 2.11's
    # constants), beside what eager measures: requested and reserved.
    row["model"] = {"eager_live": step.report["eager_peak_live_bytes"],
                    "eager_reserved": step.report["eager_reserved_bytes"]}
    for expandable in (False, True):
        if expandable and device.type != "cuda":
            continue
        _expandable(device, expandable)
        model, optimizer = case.fresh()
        eager = case.eager(model, optimizer)
        for _ in range(WARMUP):
            eager()
        key = "eager_expandable" if expandable else "eager"
        row[key] = _peaks(device, eager)
        if not expandable:
            row["eager_seconds"] = _median_seconds(device, eager, timed)
        del model, optimizer, eager
    _expandable(device, False)
    row["olla"] = _peaks(device, run, arena=step.plan.arena_bytes)
    stats = step.last_stats
    row["olla"].update(arena=stats.arena_bytes, fall_through_peak=stats.fall_through_peak_bytes,
                       peak=stats.peak_bytes, fell_through=stats.fell_through,
                       served=stats.served, blocked=stats.blocked,
                       other_stream=stats.other_stream, unclaimed=stats.unclaimed)
    row["olla_seconds"] = _median_seconds(device, run, timed)
    row["olla_replay_seconds"] = None
    if device.type == "cuda":
        del step, run
        equal, step, run = _equal_steps(case, limits, cuda_graph=True)
        row["replay_bitwise_equal"] = equal
        row["olla_replay_seconds"] = _median_seconds(device, run, timed)
        row["replay"] = {"captures": step.replay.captures, "replays": step.replay.replays}
    bound = row["eager"]["allocated"] * (1 - row["predicted_saving"] + 0.02)
    row["target_allocated"] = row["olla"]["peak"] <= bound
    if device.type == "cuda":
        row["target_reserved"] = all(row["olla"]["peak"] < row[k]["reserved"]
                                     for k in ("eager", "eager_expandable"))
        if max_batch:
            row["max_batch_16gib"] = _max_batch(case, limits)
    return row


def _mib(value):
    return "–" if value is None else f"{value / MIB:,.0f}"


def markdown(rows, machine):
    lines = [f"# olla on the GPU: the device check\n\nMachine: {machine}. "
             f"`python bench/gpu_check.py`; peaks in MiB above the model's state.\n",
             "| case | eager alloc / req / reserved | olla's model of eager: live / "
             "reserved | eager expandable reserved | "
             "olla arena + fall-through (count) | olla under torch.cuda alloc / reserved "
             "| target | 3 steps bitwise | step s eager / olla / replay |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        e, x, o = r["eager"], r.get("eager_expandable", {}), r["olla"]
        target = "met" if r["target_allocated"] and r.get("target_reserved", True) else "MISSED"
        replay = "–"
        if r["olla_replay_seconds"] is not None:
            replay = (f"{r['olla_replay_seconds']:.4f} ({r['replay']['replays']} replays, "
                      f"bitwise {'yes' if r['replay_bitwise_equal'] else 'NO'})")
        lines.append(
            f"| {r['case']} | {_mib(e['allocated'])} / {_mib(e['requested'])} / "
            f"{_mib(e['reserved'])} | {_mib(r['model']['eager_live'])} / "
            f"{_mib(r['model']['eager_reserved'])} | {_mib(x.get('reserved'))} | "
            f"{_mib(o['arena'])} + "
            f"{_mib(o['fall_through_peak'])} ({o['fell_through']}) | "
            f"{_mib(o['allocated'])} / {_mib(o['reserved'])} | {target} (predicted saving "
            f"{100 * r['predicted_saving']:.1f} %) | {'yes' if r['bitwise_equal'] else 'NO'} | "
            f"{r['eager_seconds']:.4f} / {r['olla_seconds']:.4f} / {replay} |")
    batches = [r for r in rows if "max_batch_16gib" in r]
    if batches:
        lines += ["", "Largest batch that ran in 16 GiB:", "", "| case | eager | olla |",
                  "|---|---|---|"]
        lines += [f"| {r['case']} | {r['max_batch_16gib']['eager']} | "
                  f"{r['max_batch_16gib']['olla']} |" for r in batches]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--max-batch", action="store_true")
    parser.add_argument("--time-limit", type=float, default=20.0)
    args = parser.parse_args(argv)
    device = torch.device(args.device)
    arenas.check_device(device)
    torch.use_deterministic_algorithms(True, warn_only=True)
    if device.type == "cuda":
        torch.cuda.set_device(device)
        machine = torch.cuda.get_device_name(device) + f", torch {torch.__version__}"
    else:
        machine = f"CPU, torch {torch.__version__}"
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    # --quick plans by work, not time: the same plans on any machine, and no waiting.
    limits = {"work_limit": 20_000} if args.quick else {"time_limit": args.time_limit}
    rows = []
    for index, (name, batch, autocast, fused) in enumerate(QUICK if args.quick else CASES):
        started = time.perf_counter()
        # The largest batch for the first case only: each rung plans and runs a step.
        row = check_case(Case(name, batch, autocast, fused, device), limits,
                         args.max_batch and device.type == "cuda" and index == 0,
                         timed=2 if args.quick else TIMED)
        row["seconds"] = time.perf_counter() - started
        rows.append(row)
        print(json.dumps(row), flush=True)
        # After every case, so that a run stopped at its time limit leaves what it did.
        (out / "gpu_check.json").write_text(
            json.dumps({"machine": machine, "rows": rows}, indent=1) + "\n")
        (out / "gpu_check.md").write_text(markdown(rows, machine))
    print(markdown(rows, machine))
    return 0 if all(r["bitwise_equal"] and r.get("replay_bitwise_equal", True)
                    for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
