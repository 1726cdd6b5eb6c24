"""olla side by side with what a PyTorch user would pick instead, on the same model,
batch, optimizer (AdamW) and seed. Writes bench/results/compare_torch.{md,json}.

    .venv/bin/python bench/compare_torch.py [--models resnet50:2,...] [--quick]
    .venv/bin/python bench/compare_torch.py --one MODEL:BATCH VARIANT [--budget BYTES]

Variants (VARIANTS below): eager; the optimizer step in the backward pass
(register_post_accumulate_grad_hook, one AdamW per parameter); torch.utils.checkpoint
around every block; selective activation checkpointing (SAC) that saves matmul,
convolution and attention outputs; torch.compile with and without Inductor's
reorder_for_peak_memory; compile with activation_memory_budget 0.5 and 0.2; olla; and
olla's budget mode at the bytes each recomputing PyTorch variant reached.

Each variant runs in a fresh process (compile caches and allocator state would leak
into the next variant's figures otherwise), in two phases:
  1. memory: WARMUP steps, then MEASURED steps, each inside olla's counting allocator,
     installed as PyTorch's CPU allocator, so compiled code's buffers are counted like
     eager's: the peak of live bytes a step allocated beyond the state held before it
     (parameters, optimizer state, inputs). olla's step runs in its own planned arena;
     its figure is that arena plus the peak of what fell through it. Beside it the
     process's resident peak over those steps (VmHWM, reset first): every process holds
     the same model, optimizer state and inputs, compiled ones more code.
  2. fidelity and speed: an eager copy made before the variant touched the model runs as
     many steps; the variant's losses and final parameters are compared with it, bitwise
     for the variants that run eager's kernels in eager's order of arithmetic, within a
     stated tolerance for compiled code (Inductor fuses and reorders float arithmetic);
     then TIMED rounds, each a variant step and an eager step, interleaved so that a slow
     spell of the shared machine hits both alike: the medians' ratio.

The module is importable: build_workload(..., device="cuda") and VARIANTS are what the
GPU check can reuse; run_variant measures through the CPU allocator, so it runs on the
CPU only (a GPU's figures come from torch.cuda's memory statistics).
"""

import argparse
import copy
import functools
import gc
import json
import pathlib
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import (CheckpointPolicy, checkpoint,
                                    create_selective_checkpoint_contexts)

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import olla.torch as olla_torch  # noqa: E402
from olla.capture import zoo  # noqa: E402
from olla.torch import arena as arenas  # noqa: E402
from olla.torch.memory import resident_peak_bytes  # noqa: E402

from machine import machine  # noqa: E402

MIB = 1 << 20
DEFAULT = ("resnet50:2,mobilenet_v2:4,vit_b_16:2,gpt2_small:2,convnext_tiny:2,"
           "llama_like:4")
QUICK = "mobilenet_v2:2,llama_like:2"
# Relative loss difference allowed where compiled code computes the step (measured
# here: 1e-6 to 1e-4 after five AdamW steps; a wrong gradient moves losses by 1e-2).
COMPILED_TOLERANCE = 1e-3


# ---- Models ---------------------------------------------------------------------------

class RmsLlamaBlock(nn.Module):
    """A LLaMA-style block: RMSNorm, causal attention with rotary positions, a SwiGLU
    MLP, both residual (the shape of the llama-style model in PyTorch issue 197838)."""

    def __init__(self, width, heads, hidden):
        super().__init__()
        self.heads = heads
        self.attention_norm = nn.RMSNorm(width)
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.out = nn.Linear(width, width, bias=False)
        self.mlp_norm = nn.RMSNorm(width)
        self.gate = nn.Linear(width, hidden, bias=False)
        self.up = nn.Linear(width, hidden, bias=False)
        self.down = nn.Linear(hidden, width, bias=False)

    def forward(self, x, cos, sin):
        batch, length, width = x.shape
        q, k, v = (t.view(batch, length, self.heads, -1).transpose(1, 2)
                   for t in self.qkv(self.attention_norm(x)).chunk(3, dim=-1))
        q, k = (t * cos + _rotate_half(t) * sin for t in (q, k))
        attended = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.out(attended.transpose(1, 2).reshape(batch, length, width))
        h = self.mlp_norm(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


def _rotate_half(t):
    first, second = t.chunk(2, dim=-1)
    return torch.cat((-second, first), dim=-1)


class LlamaLike(nn.Module):
    """A small LLaMA-style decoder (8 layers, width 512, 8 heads, SwiGLU 1408, 32,000
    tokens, untied head), not in olla's zoo."""

    def __init__(self, vocab=32000, width=512, layers=8, heads=8, hidden=1408,
                 length=256):
        super().__init__()
        self.embedding = nn.Embedding(vocab, width)
        self.blocks = nn.ModuleList(RmsLlamaBlock(width, heads, hidden)
                                    for _ in range(layers))
        self.norm = nn.RMSNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)
        half = width // heads // 2
        frequencies = 1.0 / 10000 ** (torch.arange(half) / half)
        angles = torch.outer(torch.arange(length), frequencies).repeat(1, 2)
        self.register_buffer("cos", angles.cos(), persistent=False)
        self.register_buffer("sin", angles.sin(), persistent=False)

    def forward(self, tokens):
        x = self.embedding(tokens)
        length = tokens.shape[1]
        cos, sin = self.cos[:length], self.sin[:length]
        for block in self.blocks:
            x = block(x, cos, sin)
        return self.head(self.norm(x))


def _next_token_loss(logits, labels):
    return F.cross_entropy(logits.flatten(0, 1), labels.flatten())


def build_workload(name, batch, device="cpu"):
    """The seeded Workload (model, inputs, targets, loss_fn) of a model name: the zoo's
    resnet50, mobilenet_v2 and vit_b_16; a GPT-2-small-sized decoder (the zoo's, at 256
    tokens rather than 1,024 so that the CPU runs it in seconds); and two models outside
    the zoo, torchvision's ConvNeXt-Tiny and LlamaLike."""
    torch.manual_seed(0)
    if name in ("gpt2_small", "llama_like"):
        model = zoo.Gpt2Like() if name == "gpt2_small" else LlamaLike()
        vocab = model.wte.num_embeddings if name == "gpt2_small" else 32000
        tokens = torch.randint(0, vocab, (batch, 256))
        labels = torch.randint(0, vocab, (batch, 256))
        work = zoo.Workload(model, (tokens,), (labels,), _next_token_loss)
    else:
        work = zoo.workload(name, batch, "train")
    if device != "cpu":
        work = zoo.Workload(work.model.to(device), tuple(t.to(device) for t in work.inputs),
                            tuple(t.to(device) for t in work.targets), work.loss_fn)
    return work


def blocks(model):
    """The blocks a user checkpoints: the children of a Sequential or ModuleList that
    holds two or more modules of one class with modules of their own (ResNet's
    bottlenecks, MobileNet's inverted residuals, ViT's and the decoders' layers,
    ConvNeXt's blocks); not looked into further."""
    found = []

    def visit(module):
        if isinstance(module, (nn.Sequential, nn.ModuleList)):
            kinds = [type(c) for c in module.children() if any(True for _ in c.children())]
            repeated = {k for k in kinds if kinds.count(k) >= 2}
            chosen = [c for c in module.children() if type(c) in repeated]
            if chosen:
                found.extend(chosen)
                for child in module.children():
                    if type(child) not in repeated:
                        visit(child)
                return
        for child in module.children():
            visit(child)

    visit(model)
    return found


# ---- Variants ---------------------------------------------------------------------------

# What SAC keeps: the outputs of the ops that cost the most to run again.
_SAVED = {torch.ops.aten.mm.default, torch.ops.aten.addmm.default,
          torch.ops.aten.bmm.default, torch.ops.aten.convolution.default,
          torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default,
          torch.ops.aten._scaled_dot_product_efficient_attention.default,
          torch.ops.aten._scaled_dot_product_flash_attention.default}


def _save_matmuls(ctx, op, *args, **kwargs):
    return CheckpointPolicy.MUST_SAVE if op in _SAVED else CheckpointPolicy.PREFER_RECOMPUTE


def _checkpoint_blocks(model, selective):
    wrapped = blocks(model)
    if not wrapped:
        raise ValueError(f"{type(model).__name__}: no repeated blocks to checkpoint")
    context = (functools.partial(create_selective_checkpoint_contexts, _save_matmuls)
               if selective else None)
    for block in wrapped:
        forward = block.forward
        options = {"context_fn": context} if context else {}
        block.forward = functools.partial(checkpoint, forward, use_reentrant=False,
                                          **options)
    return len(wrapped)


def _adamw(parameters):
    return torch.optim.AdamW(parameters, lr=1e-4)


def _eager_step(model, optimizer, work):
    loss = work.loss_fn(model(*work.inputs), *work.targets)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return loss.detach()


class Variant:
    """A way to train: setup(model, work, budget) -> (step, details); step() runs one
    training step and returns its loss. `bitwise`: whether it runs eager's kernels in
    eager's arithmetic order (its losses must equal eager's bit for bit)."""

    def __init__(self, name, setup, recomputes, bitwise=True, description=""):
        self.name, self.setup, self.recomputes = name, setup, recomputes
        self.bitwise, self.description = bitwise, description


def _setup_eager(model, work, budget):
    optimizer = _adamw(model.parameters())
    return functools.partial(_eager_step, model, optimizer, work), {}


def _setup_in_backward(model, work, budget):
    optimizers = {p: _adamw([p]) for p in model.parameters() if p.requires_grad}

    def update(parameter):
        optimizers[parameter].step()
        optimizers[parameter].zero_grad(set_to_none=True)

    for parameter in optimizers:
        parameter.register_post_accumulate_grad_hook(update)

    def step():
        loss = work.loss_fn(model(*work.inputs), *work.targets)
        loss.backward()
        return loss.detach()

    return step, {}


def _setup_checkpoint(selective):
    def setup(model, work, budget):
        count = _checkpoint_blocks(model, selective)
        step, _ = _setup_eager(model, work, budget)
        return step, {"blocks": count}
    return setup


def _setup_compile(reorder=True, activation_budget=None):
    def setup(model, work, budget):
        import torch._functorch.config as functorch_config
        import torch._inductor.config as inductor_config
        inductor_config.reorder_for_peak_memory = reorder
        # Random ops (dropout, stochastic depth) as eager draws them, not from
        # Inductor's own generator, so that losses stay comparable with eager's.
        inductor_config.fallback_random = True
        if activation_budget is not None:
            functorch_config.activation_memory_budget = activation_budget
        compiled = torch.compile(model)
        optimizer = _adamw(model.parameters())
        return functools.partial(_eager_step, compiled, optimizer, work), {}
    return setup


def _setup_olla(model, work, budget, time_limit=60.0):
    optimizer = _adamw(model.parameters())
    step = olla_torch.optimize(model, list(work.inputs), work.loss_fn, optimizer,
                               targets=list(work.targets), memory_budget=budget,
                               time_limit=time_limit)
    report = step.report
    details = {"arena": report["arena_bytes"],
               "recomputations": report.get("recomputed_ops", 0),
               "added_compute": report.get("added_compute", 0.0)}

    def run():
        return step(*work.inputs, targets=list(work.targets))

    # What the step held: its arena and the peak of what fell through it.
    run.peak = lambda: step.last_stats.peak_bytes
    return run, details


VARIANTS = {v.name: v for v in [
    Variant("eager", _setup_eager, False, description="loss.backward(); optimizer.step()"),
    Variant("optimizer_in_backward", _setup_in_backward, False,
            description="AdamW per parameter in register_post_accumulate_grad_hook"),
    Variant("checkpoint", _setup_checkpoint(False), True,
            description="torch.utils.checkpoint (use_reentrant=False) around every block"),
    Variant("sac", _setup_checkpoint(True), True,
            description="selective checkpointing of every block, saving matmul, "
                        "convolution and attention outputs"),
    Variant("compile", _setup_compile(), False, bitwise=False,
            description="torch.compile (Inductor, reorder_for_peak_memory=True, its "
                        "default)"),
    Variant("compile_no_reorder", _setup_compile(reorder=False), False, bitwise=False,
            description="torch.compile, reorder_for_peak_memory=False"),
    Variant("compile_budget_0.5", _setup_compile(activation_budget=0.5), True,
            bitwise=False, description="torch.compile, activation_memory_budget=0.5"),
    Variant("compile_budget_0.2", _setup_compile(activation_budget=0.2), True,
            bitwise=False, description="torch.compile, activation_memory_budget=0.2"),
    Variant("olla", _setup_olla, False, description="olla.torch.optimize"),
]}


# ---- One variant, one process -------------------------------------------------------

def _same(a, b, bitwise):
    if bitwise:
        return torch.equal(a, b)
    return torch.allclose(a, b, rtol=COMPILED_TOLERANCE, atol=COMPILED_TOLERANCE)


def run_variant(model_name, batch, variant_name, budget=None, warmup=2, measured=3,
                timed=5):
    """Runs one variant of one model on the CPU as the module's documentation describes
    and returns its row (a dict)."""
    variant = VARIANTS[variant_name]
    work = build_workload(model_name, batch)
    model = work.model
    initial = copy.deepcopy(model)
    row = {"model": model_name, "batch": batch, "variant": variant_name}
    if budget is not None:
        row["budget"] = budget
    started = time.perf_counter()
    step, details = variant.setup(model, work, budget)
    row.update(details)
    losses = []
    torch.manual_seed(1)  # The eager copy's steps below draw the same random numbers.
    first = time.perf_counter()
    for _ in range(warmup):
        losses.append(step())
    row["setup_seconds"] = time.perf_counter() - started  # compile runs in step one
    row["first_steps_seconds"] = time.perf_counter() - first
    peaks = []
    gc.collect()

    def measured_steps():
        for _ in range(measured):
            if hasattr(step, "peak"):
                losses.append(step())
                peaks.append(step.peak())
            else:
                with arenas.counting() as stats:
                    losses.append(step())
                peaks.append(stats().fall_through_peak_bytes)

    row["resident_rise"] = resident_peak_bytes(measured_steps)
    row["peak"] = max(peaks)

    reference = initial
    reference_optimizer = _adamw(reference.parameters())
    torch.manual_seed(1)
    expected = [_eager_step(reference, reference_optimizer, work) for _ in losses]
    row["losses"] = [float(x) for x in losses]
    row["eager_losses"] = [float(x) for x in expected]
    same_losses = all(_same(a, b, variant.bitwise) for a, b in zip(losses, expected))
    same_weights = all(_same(p, q, variant.bitwise) for p, q in
                       zip(model.parameters(), reference.parameters()))
    row["equal"] = same_losses and same_weights
    row["check"] = "bitwise" if variant.bitwise else f"rtol {COMPILED_TOLERANCE:g}"
    times = {"variant": [], "eager": []}
    for _ in range(timed):
        for which, run in (("variant", step),
                           ("eager", lambda: _eager_step(reference, reference_optimizer,
                                                         work))):
            began = time.perf_counter()
            run()
            times[which].append(time.perf_counter() - began)
    row["step_seconds"] = statistics.median(times["variant"])
    row["eager_step_seconds"] = statistics.median(times["eager"])
    return row


# ---- The table ----------------------------------------------------------------------

def _child(spec, variant, budget, quick):
    """run_variant in a fresh process; its row, or the error it ended with."""
    command = [sys.executable, __file__, "--one", spec, variant]
    if budget is not None:
        command += ["--budget", str(budget)]
    if quick:
        command.append("--quick")
    done = subprocess.run(command, capture_output=True, text=True)
    name, batch = spec.split(":")
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
        return {"model": name, "batch": int(batch), "variant": variant, "budget": budget,
                "error": lines[-1] if lines else f"exit status {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _mib(value):
    return "" if value is None else f"{value / MIB:.1f}"


def _table(rows):
    lines = ["| model | variant | peak MiB | vs eager | resident rise MiB | step s | "
             "vs eager (interleaved) | setup s | losses vs eager | olla: arena MiB, "
             "recomputed, added |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|---|"]
    eager_peak = {}
    for row in rows:
        key = (row["model"], row["batch"])
        label = row["variant"] if row.get("budget") is None else (
            f"olla at {row['at']} ({_mib(row['budget'])} MiB)")
        if "error" in row:
            lines.append(f"| {row['model']} b{row['batch']} | {label} | | | | | | | "
                         f"failed: {row['error'][:160]} | |")
            continue
        if row["variant"] == "eager":
            eager_peak[key] = row["peak"]
        ratio = (f"{row['peak'] / eager_peak[key]:.2f}" if key in eager_peak else "")
        equal = ("equal" if row["equal"] else "DIFFERENT") + f" ({row['check']})"
        planned = ""
        if "arena" in row:
            planned = (f"{_mib(row['arena'])}, {row['recomputations']}, "
                       f"{100 * row['added_compute']:.1f} %")
        lines.append(
            f"| {row['model']} b{row['batch']} | {label} | {_mib(row['peak'])} | {ratio} | "
            f"{_mib(row['resident_rise'])} | {row['step_seconds']:.3f} | "
            f"{row['step_seconds'] / row['eager_step_seconds']:.2f} | "
            f"{row['setup_seconds']:.1f} | {equal} | {planned} |")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=None, help=f"NAME:BATCH,... ({DEFAULT})")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--quick", action="store_true",
                        help=f"two small models ({QUICK}) and fewer steps")
    parser.add_argument("--one", nargs=2, metavar=("MODEL:BATCH", "VARIANT"),
                        help="run one variant in this process; print its row as JSON")
    parser.add_argument("--budget", type=int, default=None,
                        help="with --one olla: olla's memory budget in bytes")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "compare_torch"))
    args = parser.parse_args()
    steps = dict(warmup=2, measured=2, timed=3) if args.quick else {}
    if args.one:
        spec, variant = args.one
        name, batch = spec.split(":")
        row = run_variant(name, int(batch), variant, args.budget, **steps)
        print(json.dumps(row))
        return
    rows = []
    variants = args.variants.split(",")
    for spec in (args.models or (QUICK if args.quick else DEFAULT)).split(","):
        measured = {}
        for variant in variants:
            row = _child(spec, variant, None, args.quick)
            rows.append(row)
            measured[variant] = row
            print(json.dumps(row), flush=True)
        # olla's budget mode at the bytes each recomputing variant reached.
        for variant in variants:
            reached = measured[variant]
            if not VARIANTS[variant].recomputes or "error" in reached:
                continue
            row = _child(spec, "olla", reached["peak"], args.quick)
            row["at"] = variant
            rows.append(row)
            print(json.dumps(row), flush=True)
    out = pathlib.Path(args.out)
    out.with_suffix(".json").write_text(json.dumps(rows, indent=1) + "\n")
    lines = [
        "# olla beside what a PyTorch user would pick instead",
        "",
        f"Machine: {machine()}; torch {torch.__version__}, CPU. "
        "`.venv/bin/python bench/compare_torch.py` (bench/compare_torch.py's documentation "
        "says how each figure is taken). Same model, batch, AdamW and seed for every "
        "variant, each in a fresh process.",
        "",
        "- peak: the peak of live bytes one training step allocated through PyTorch's "
        "CPU allocator beyond the state held before it (parameters, AdamW's state, "
        "inputs); olla's: its arena plus what fell through it. vs eager: that peak over "
        "eager's.",
        "- resident rise: how far the process's resident memory rose during the measured "
        "steps (olla's arena is resident before them).",
        "- step s: the median of interleaved steps; vs eager: over the median of the "
        "eager steps interleaved with it in the same process.",
        "- setup s: building the variant and its first two steps (compilation, olla's "
        "capture, calibration, self-check and planning).",
        "- losses vs eager: every loss and final parameter against an eager copy's, "
        f"bitwise, or within a relative {COMPILED_TOLERANCE:g} for compiled code.",
        "- olla at X: olla's budget mode with X's measured peak as its memory budget.",
        "",
        "Variants: " + "; ".join(f"`{v.name}`: {v.description}"
                                  for v in VARIANTS.values()) + ".",
        "",
    ] + _table(rows)
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
