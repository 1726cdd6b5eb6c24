"""olla side by side with what a PyTorch user would pick instead, on the same model,
batch, optimizer (AdamW) and seed. Writes bench/results/compare_torch.{md,json} and a
plot per model, bench/results/compare_torch/MODEL_bBATCH.{svg,png}.

    .venv/bin/python bench/compare_torch.py [--models resnet50:2,...] [--quick] [--keep]
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
     then timed rounds, each a variant step and an eager step, interleaved so that a slow
     spell of the shared machine hits both alike, and each first in every other round:
     the medians' ratio.

The memory-compute curve of each model: compile's activation_memory_budget from 1.0
down to 0.0 (CURVE_RATIOS, each a variant as above) and olla's budget mode at
CURVE_POINTS budgets (run_curve: olla.torch.tradeoff, each plan run and timed, beside
eager steps timed in the same process), plotted as peak against step time with the
other variants.

On a GPU (--device cuda; the module is importable, so the GPU check can reuse
build_workload, VARIANTS and run_variant) the same variants are measured with
torch.cuda's statistics: the peak of bytes allocated beyond the model's state
(max_memory_allocated), of bytes requested (before the allocator's rounding) and of
bytes reserved, each step synchronized before it is timed; olla's step runs in its
planned arena on the device (docs/gpu.md). This path has not yet run on a GPU.
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

import olla  # noqa: E402
import olla.torch as olla_torch  # noqa: E402
from olla import zoo  # noqa: E402
from olla.torch import arena as arenas  # noqa: E402
from olla.torch.memory import resident_peak_bytes  # noqa: E402

from machine import machine  # noqa: E402

MIB = 1 << 20
DEFAULT = ("resnet50:2,mobilenet_v2:4,vit_b_16:2,gpt2_small:2,convnext_tiny:2,"
           "llama_like:4")
QUICK = "mobilenet_v2:2,llama_like:2"
# Where compiled code computes the step, its first step is checked against eager's: the
# loss (at the same weights) within this relative error, and the whole gradient within
# it or twice float32's own error against float64 where that is larger (Inductor fuses
# and reorders float arithmetic; a wrong gradient is off by far more).
# Later losses are compared but not judged: AdamW divides each gradient by its running
# size, so float differences in gradients near zero become whole learning-rate steps
# (resnet50: losses 2.5 % apart by step three, mobilenet_v2 0.13 % after one step).
COMPILED_TOLERANCE = 1e-3
# The memory-compute curve: compile's activation_memory_budget at these ratios (1.0,
# its default, is the `compile` variant) and olla's budget mode at CURVE_POINTS budgets.
CURVE_RATIOS = (0.8, 0.6, 0.4, 0.2, 0.0)
CURVE_POINTS = 10


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


def _eager_step(model, optimizer, work, gradients=None):
    """One training step; when `gradients` is an empty list, the step's gradients are
    recorded in it (before the update)."""
    loss = work.loss_fn(model(*work.inputs), *work.targets)
    loss.backward()
    if gradients is not None and not gradients:
        gradients.extend(None if p.grad is None else p.grad.detach().clone()
                         for p in model.parameters())
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
        step = functools.partial(_eager_step, compiled, optimizer, work, [])
        step.first_gradients = step.args[3]  # the fidelity check's
        return step, {}
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
    Variant("olla", _setup_olla, False, description="olla.torch.optimize"),
] + [
    Variant(f"compile_budget_{ratio}", _setup_compile(activation_budget=ratio), True,
            bitwise=False, description=f"torch.compile, activation_memory_budget={ratio}")
    for ratio in sorted({0.5, *CURVE_RATIOS}, reverse=True)]}
# The table's variants: compile with activation budgets 0.5 and 0.2 of the curve's.
TABLE = ("eager", "optimizer_in_backward", "checkpoint", "sac", "compile",
         "compile_no_reorder", "compile_budget_0.5", "compile_budget_0.2", "olla")
# What a full run measures: the table, compile's other activation budgets of the curve,
# and olla's curve.
EVERY = TABLE + tuple(f"compile_budget_{r}" for r in CURVE_RATIOS
                      if f"compile_budget_{r}" not in TABLE) + ("olla_curve",)


# ---- One variant, one process -------------------------------------------------------

def _synchronized(device, run):
    """`run` as a step that returns once the device has finished it."""
    if device == "cpu":
        return run

    def synchronized():
        result = run()
        torch.cuda.synchronize()
        return result
    return synchronized


def _cuda_peaks(step, count, losses):
    """Runs `count` steps on the current CUDA device: the peaks of bytes allocated and
    requested beyond what was allocated before them (the model's state), and of bytes
    the caching allocator reserved."""
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    allocated = torch.cuda.memory_allocated()
    requested = torch.cuda.memory_stats().get("requested_bytes.all.current", 0)
    for _ in range(count):
        losses.append(step())
    stats = torch.cuda.memory_stats()
    return {"peak": torch.cuda.max_memory_allocated() - allocated,
            "requested_peak": stats.get("requested_bytes.all.peak", 0) - requested,
            "reserved_peak": torch.cuda.max_memory_reserved()}


def _gradient_error(found, expected):
    """The relative error of one step's whole gradient, over every parameter:
    |found - expected| / |expected| (Euclidean norms)."""
    pairs = [(a.double(), b.double()) for a, b in zip(found, expected) if b is not None]
    difference = sum(float((a - b).square().sum()) for a, b in pairs)
    norm = sum(float(b.square().sum()) for _, b in pairs)
    return (difference / norm) ** 0.5 if norm > 0 else 0.0


def _paired_medians(run, eager, rounds, after_round=None):
    """The median seconds of `run` and of `eager` over `rounds` rounds of one step each,
    each first in every other round: with the variant always first, eager's own step
    measured 1.24 times the eager copy's on resnet50."""
    times = ([], [])
    pair = [(0, run), (1, eager)]
    for _ in range(rounds):
        pair.reverse()
        for which, step in pair:
            began = time.perf_counter()
            step()
            times[which].append(time.perf_counter() - began)
        if after_round:
            after_round()
    return statistics.median(times[0]), statistics.median(times[1])


def _float32_noise(model, work):
    """How far float32's gradient of the first step lies from float64's, relatively:
    what the step's arithmetic allows (0.9 % on mobilenet_v2 and 2.2 % on resnet50 at
    batch 2), which compiled code cannot be asked to beat."""
    gradients = []
    for dtype in (torch.float32, torch.float64):
        copied = copy.deepcopy(model).to(dtype)
        inputs, targets = ([t.to(dtype) if t.is_floating_point() else t for t in tensors]
                           for tensors in (work.inputs, work.targets))
        torch.manual_seed(1)
        work.loss_fn(copied(*inputs), *targets).backward()
        gradients.append([p.grad for p in copied.parameters()])
    return _gradient_error(*gradients)


def run_variant(model_name, batch, variant_name, budget=None, warmup=2, measured=3,
                timed=6, device="cpu"):
    """Runs one variant of one model as the module's documentation describes and returns
    its row (a dict). On a CUDA device the peaks are torch.cuda's (allocated, requested,
    reserved) rather than the counting allocator's and the resident rise."""
    variant = VARIANTS[variant_name]
    work = build_workload(model_name, batch, device)
    model = work.model
    initial = copy.deepcopy(model)
    row = {"model": model_name, "batch": batch, "variant": variant_name, "device": device}
    if budget is not None:
        row["budget"] = budget
    started = time.perf_counter()
    step, details = variant.setup(model, work, budget)
    step = _synchronized(device, step)  # On CUDA the peaks are torch.cuda's (no .peak)
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

    if device == "cpu":
        row["resident_rise"] = resident_peak_bytes(measured_steps)
        row["peak"] = max(peaks)
    else:
        row.update(_cuda_peaks(step, measured, losses))

    reference = initial
    reference_optimizer = _adamw(reference.parameters())
    torch.manual_seed(1)
    if not variant.bitwise:  # before the eager copy trains
        row["float32_gradient_error"] = _float32_noise(initial, work)
    reference_gradients = []
    expected = [_eager_step(reference, reference_optimizer, work, reference_gradients)
                for _ in losses]
    row["losses"] = [float(x) for x in losses]
    row["eager_losses"] = [float(x) for x in expected]
    if variant.bitwise:
        row["equal"] = (all(torch.equal(a, b) for a, b in zip(losses, expected)) and
                        all(torch.equal(p, q) for p, q in
                            zip(model.parameters(), reference.parameters())))
    else:  # _fidelity says why the first step only
        row["gradient_error"] = _gradient_error(step.first_gradients, reference_gradients)
        row["equal"] = (torch.allclose(losses[0], expected[0], rtol=COMPILED_TOLERANCE,
                                       atol=0) and
                        row["gradient_error"] <= max(
                            COMPILED_TOLERANCE, 2 * row["float32_gradient_error"]))
    row["check"] = "bitwise" if variant.bitwise else f"rtol {COMPILED_TOLERANCE:g}"
    row["step_seconds"], row["eager_step_seconds"] = _paired_medians(
        step, _synchronized(device, lambda: _eager_step(reference, reference_optimizer,
                                                        work)), timed)
    return row


def run_curve(model_name, batch, points=CURVE_POINTS, timed=4, time_limit=120.0,
              device="cpu"):
    """olla's memory-compute curve of one model: olla.torch.optimize with AdamW, then
    budget mode's curve of its graph (olla.tradeoff_graph, as olla.torch.tradeoff
    computes it), each distinct plan run in the step (use_plan) for a warm-up step and
    `timed` more, each paired with an eager copy's step, each first in turn: per point
    the medians and the plan's measured peak (its arena and what fell through); a
    dict."""
    work = build_workload(model_name, batch, device)
    eager = copy.deepcopy(work.model)
    eager_optimizer = _adamw(eager.parameters())
    step = olla_torch.optimize(work.model, list(work.inputs), work.loss_fn,
                               _adamw(work.model.parameters()), targets=list(work.targets),
                               time_limit=time_limit / (points + 1))
    curve = olla.tradeoff_graph(step.graph, points, time_limit=time_limit,
                                alignment=step.plan.alignment)

    def run_olla():
        step(*work.inputs, targets=list(work.targets))

    measured = {}
    for point in curve.points:
        plan = point["plan"]
        if plan is None or id(plan) in measured:
            continue
        step.use_plan(plan)
        run_olla()  # a warm-up in the plan's new arena
        peaks = []
        seconds, eager_seconds = _paired_medians(
            run_olla, lambda: _eager_step(eager, eager_optimizer, work), timed,
            lambda: peaks.append(step.last_stats.peak_bytes))
        measured[id(plan)] = {"peak": max(peaks), "step_seconds": seconds,
                              "eager_step_seconds": eager_seconds}
    return {"model": model_name, "batch": batch, "variant": "olla_curve",
            "device": device, "recompute_floor": curve.recompute_floor_bytes,
            "points": [{"budget": p["budget_bytes"], "arena": p["arena_bytes"],
                        "added_compute": p["added_compute"],
                        "recomputations": p["recomputed_ops"], **measured[id(p["plan"])]}
                       for p in curve.points if p["plan"] is not None]}


# ---- The table and the curves ------------------------------------------------------

def _child(spec, variant, budget, quick, device):
    """run_variant (or run_curve, for the variant "olla_curve") in a fresh process;
    its row, or the error it ended with."""
    command = [sys.executable, __file__, "--one", spec, variant, "--device", device]
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


def run_model(spec, variants, quick, device):
    """The rows of one model: each variant, then olla at the peak of each recomputing
    variant of the table that ran, then (when asked for) olla's curve."""
    rows = []

    def add(row):
        rows.append(row)
        print(json.dumps(row), flush=True)
        return row

    measured = {v: add(_child(spec, v, None, quick, device))
                for v in variants if v != "olla_curve"}
    for variant, reached in measured.items():
        if variant in TABLE and VARIANTS[variant].recomputes and "error" not in reached:
            row = _child(spec, "olla", reached["peak"], quick, device)
            row["at"] = variant
            add(row)
    if "olla_curve" in variants:
        add(_child(spec, "olla_curve", None, quick, device))
    return rows


def _key(row):
    """What a row measured: a model, a variant, and what olla's budget was set at."""
    return row["model"], row["batch"], row["variant"], row.get("at")


def _mib(value):
    return "" if value is None else f"{value / MIB:.1f}"


def _label(row):
    if row.get("budget") is None:
        return row["variant"]
    return f"olla at {row.get('at', '?')} ({_mib(row['budget'])} MiB)"


def _fidelity(row):
    """The verdict against eager: bitwise (losses and final parameters), or for compiled
    code the first step's loss and gradient within COMPILED_TOLERANCE, with the largest
    relative drift of the losses over all steps."""
    if row["check"] == "bitwise":
        return ("equal" if row["equal"] else "DIFFERENT") + " (bitwise)"
    drift = [abs(a - b) / max(abs(b), 1e-12)
             for a, b in zip(row["losses"], row["eager_losses"])]
    if "gradient_error" not in row:  # measured before the gradient check existed
        return f"not judged ({len(drift)} steps: loss drift {max(drift):.0e})"
    return (("close" if row["equal"] else "DIFFERENT") +
            f" (step 1: loss {drift[0]:.0e}, gradient {row['gradient_error']:.0e}, "
            f"float32's own {row['float32_gradient_error']:.0e}; {len(drift)} steps: loss "
            f"drift {max(drift):.0e})")


def _table(rows):
    lines = ["| model | variant | peak MiB | vs eager | resident rise (CPU) or reserved "
             "(GPU) MiB | step s | "
             "vs eager (interleaved) | setup s | losses vs eager | olla: arena MiB, "
             "recomputed, added (estimated) |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|---|"]
    eager_peak = {}
    for row in rows:
        key = (row["model"], row["batch"])
        if row["variant"] == "olla_curve":
            continue
        if "error" in row:
            lines.append(f"| {row['model']} b{row['batch']} | {_label(row)} | | | | | | | "
                         f"failed: {row['error'][:160]} | |")
            continue
        if row["variant"] == "eager":
            eager_peak[key] = row["peak"]
        ratio = (f"{row['peak'] / eager_peak[key]:.2f}" if key in eager_peak else "")
        equal = _fidelity(row)
        planned = ""
        if "arena" in row:
            planned = (f"{_mib(row['arena'])}, {row['recomputations']}, "
                       f"{100 * row['added_compute']:.1f} %")
        lines.append(
            f"| {row['model']} b{row['batch']} | {_label(row)} | {_mib(row['peak'])} | "
            f"{ratio} | {_mib(row.get('resident_rise', row.get('reserved_peak')))} | {row['step_seconds']:.3f} | "
            f"{row['step_seconds'] / row['eager_step_seconds']:.2f} | "
            f"{row['setup_seconds']:.1f} | {equal} | {planned} |")
    return lines


def _compile_curve(rows):
    """compile's rows by activation budget, 1.0 (the `compile` variant) first."""
    found = []
    for row in rows:
        if "error" in row:
            continue
        if row["variant"] == "compile":
            found.append((1.0, row))
        elif row["variant"].startswith("compile_budget_"):
            found.append((float(row["variant"].rsplit("_", 1)[1]), row))
    return sorted(found, key=lambda item: -item[0])


def _step_ratio(curve, point):
    """A curve point's step time over eager's (measured beside it)."""
    return point["step_seconds"] / point.get("eager_step_seconds",
                                             curve.get("eager_step_seconds"))


def _above(before, after):
    """How far `after` is above `before`, in words."""
    rise = after - before
    return f"{rise / MIB:.1f} MiB above" if rise >= MIB // 10 else f"{rise} bytes above"


def _increases(values):
    """The places where a sequence that should not grow grows: (index, before, after)."""
    return [(i, a, b) for i, (a, b) in enumerate(zip(values, values[1:]), 1) if b > a]


def _curve_section(rows, plot):
    """The memory-compute curve of one model: its plot and both curves' points, with
    whether each is monotone."""
    model, batch = rows[0]["model"], rows[0]["batch"]
    curve = next((r for r in rows if r["variant"] == "olla_curve"), None)
    lines = [f"### {model} b{batch}", "", f"![{model}]({plot})", ""]
    if curve is None or "error" in curve:
        lines += [f"olla's curve failed: {curve['error'] if curve else 'not run'}", ""]
    else:
        lines += ["| olla budget MiB | arena MiB | measured peak MiB | recomputed | added "
                  "(estimated) | step vs eager |", "|---:|---:|---:|---:|---:|---:|"]
        for p in curve["points"]:
            lines.append(f"| {_mib(p['budget'])} | {_mib(p['arena'])} | {_mib(p['peak'])} | "
                         f"{p['recomputations']} | {100 * p['added_compute']:.2f} % | "
                         f"{_step_ratio(curve, p):.2f} |")
        arenas_ = [p["arena"] for p in curve["points"]]
        peaks = [p["peak"] for p in curve["points"]]
        added = [-p["added_compute"] for p in curve["points"]]
        monotone = not _increases(arenas_) and not _increases(added)
        lines += ["", f"olla's curve (recompute floor {_mib(curve['recompute_floor'])} MiB): "
                  f"arena and added compute monotone: {'yes' if monotone else 'NO'}; "
                  "measured peak monotone: "
                  + ("yes" if not _increases(peaks) else "no, " + ", ".join(
                      f"{_above(a, b)} the point before" for _, a, b in _increases(peaks)))
                  + "."]
    compiled = _compile_curve(rows)
    if compiled:
        lines += ["", "| compile activation_memory_budget | peak MiB | step vs eager |",
                  "|---:|---:|---:|"]
        for ratio, row in compiled:
            lines.append(f"| {ratio} | {_mib(row['peak'])} | "
                         f"{row['step_seconds'] / row['eager_step_seconds']:.2f} |")
        grows = _increases([row["peak"] for _, row in compiled])
        lines += ["", "compile's peak monotone in the ratio: " + (
            "yes" if not grows else "no: " + ", ".join(
                f"{compiled[i][0]} peaks {_above(a, b)} {compiled[i - 1][0]}'s"
                for i, a, b in grows)) + "."]
    return lines + [""]


def _plot(rows, path):
    """One model's peak against step time, every variant and both curves, as SVG and
    PNG at `path` (without suffix)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    matplotlib.rcParams["svg.hashsalt"] = "olla"  # the same SVG for the same figures
    model, batch = rows[0]["model"], rows[0]["batch"]
    figure, axes = plt.subplots(figsize=(10, 5))
    curve = next((r for r in rows if r["variant"] == "olla_curve" and "error" not in r),
                 None)
    if curve:
        axes.plot([p["peak"] / MIB for p in curve["points"]],
                  [_step_ratio(curve, p) for p in curve["points"]],
                  "o-", color="tab:blue", label="olla budget mode (tradeoff)")
    compiled = _compile_curve(rows)
    if compiled:
        xs = [row["peak"] / MIB for _, row in compiled]
        ys = [row["step_seconds"] / row["eager_step_seconds"] for _, row in compiled]
        axes.plot(xs, ys, "s--", color="tab:orange",
                  label="torch.compile, activation_memory_budget")
        for (ratio, _), x, y in zip(compiled, xs, ys):
            axes.annotate(f"{ratio:g}", (x, y), textcoords="offset points", xytext=(4, 4),
                          fontsize=8, color="tab:orange")
    markers = {"eager": ("k", "D"), "optimizer_in_backward": ("tab:gray", "v"),
               "compile_no_reorder": ("tab:brown", "s"), "checkpoint": ("tab:green", "^"),
               "sac": ("tab:olive", "P"), "olla": ("tab:blue", "*")}
    for row in rows:
        if "error" in row or "peak" not in row:
            continue
        if row["variant"] in markers and row.get("budget") is None:
            color, marker = markers[row["variant"]]
            axes.plot(row["peak"] / MIB, row["step_seconds"] / row["eager_step_seconds"],
                      marker, color=color, markersize=9, linestyle="none",
                      label=row["variant"])
        elif row.get("budget") is not None:
            axes.plot(row["peak"] / MIB, row["step_seconds"] / row["eager_step_seconds"],
                      "x", color="tab:blue", markersize=8, linestyle="none",
                      label="olla at a PyTorch variant's peak")
    handles, labels = axes.get_legend_handles_labels()
    unique = dict(zip(labels, handles))
    axes.legend(unique.values(), unique.keys(), fontsize=8, loc="upper left",
                bbox_to_anchor=(1.01, 1.0))
    axes.set_xlabel("peak MiB of a training step (live bytes beyond the model's state)")
    axes.set_ylabel("step time / eager's")
    axes.set_title(f"{model}, batch {batch}, AdamW, CPU")
    axes.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path.with_suffix(".svg"), metadata={"Date": None})
    figure.savefig(path.with_suffix(".png"), dpi=90)
    plt.close(figure)


def write_results(rows, out):
    """bench/results/compare_torch.{json,md} and a plot per model."""
    out.with_suffix(".json").write_text(json.dumps(rows, indent=1) + "\n")
    plots = out.parent / out.name
    plots.mkdir(exist_ok=True)
    by_model = {}
    for row in rows:
        by_model.setdefault((row["model"], row["batch"]), []).append(row)
    sections = []
    for (model, batch), model_rows in by_model.items():
        name = f"{model}_b{batch}"
        _plot(model_rows, plots / name)
        sections += _curve_section(model_rows, f"{out.name}/{name}.png")
    lines = [
        "# olla beside what a PyTorch user would pick instead",
        "",
        f"Machine: {machine()}; torch {torch.__version__}, "
        f"{rows[0].get('device', 'cpu')}. "
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
        "bitwise; for compiled code the first step's loss and whole gradient (relative "
        f"errors, close when the loss is within {COMPILED_TOLERANCE:g} and the gradient "
        "within that or twice float32's own error against float64), and the largest "
        "relative drift of the losses over all steps, not judged: AdamW divides each "
        "gradient by its running size, so float differences in gradients near zero "
        "grow into whole learning-rate steps.",
        "- olla at X: olla's budget mode with X's measured peak as its memory budget.",
        "",
        "Variants: " + "; ".join(f"`{VARIANTS[v].name}`: {VARIANTS[v].description}"
                                  for v in TABLE) + ".",
        "",
    ] + _table(rows) + [
        "",
        "## The memory-compute curves",
        "",
        f"olla's budget mode at {CURVE_POINTS} budgets from the arena without "
        "recomputation down to the smallest it reaches (`olla.torch.tradeoff(..., "
        "measure_steps=3)`: each plan's median step and measured peak; step vs eager: "
        "over the median of eager steps timed in the same process), beside "
        "torch.compile's activation_memory_budget from 1.0 (its default) down to 0.0, "
        "checkpointing and the other variants: peak against step time.",
        "",
    ] + sections
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=None, help=f"NAME:BATCH,... ({DEFAULT})")
    parser.add_argument("--variants", default=None,
                        help="VARIANT,... (default: the table's, compile's other "
                             "activation budgets, and olla_curve)")
    parser.add_argument("--quick", action="store_true",
                        help=f"two small models ({QUICK}), fewer steps, olla's curve at "
                             "4 budgets and compile's only at the table's two budgets")
    parser.add_argument("--one", nargs=2, metavar=("MODEL:BATCH", "VARIANT"),
                        help="run one variant (or olla_curve) in this process; print its "
                             "row as JSON")
    parser.add_argument("--device", default="cpu",
                        help="cpu, or cuda: torch.cuda's peaks")
    parser.add_argument("--budget", type=int, default=None,
                        help="with --one olla: olla's memory budget in bytes")
    parser.add_argument("--keep", action="store_true",
                        help="keep the rows of the results file this run does not "
                             "measure again")
    parser.add_argument("--replot", action="store_true",
                        help="measure nothing: write the table and plots again from the "
                             "results file")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "compare_torch"))
    args = parser.parse_args()
    steps = dict(warmup=2, measured=2, timed=3) if args.quick else {}
    if args.one:
        spec, variant = args.one
        name, batch = spec.split(":")
        if variant == "olla_curve":
            row = run_curve(name, int(batch), device=args.device,
                            **(dict(points=4, timed=2) if args.quick else {}))
        else:
            row = run_variant(name, int(batch), variant, args.budget, device=args.device,
                              **steps)
        print(json.dumps(row))
        return
    out = pathlib.Path(args.out)
    if args.replot:
        print("\n".join(write_results(json.loads(out.with_suffix(".json").read_text()),
                                       out)))
        return
    specs = (args.models or (QUICK if args.quick else DEFAULT)).split(",")
    variants = (args.variants.split(",") if args.variants else
                list(TABLE) + ["olla_curve"] if args.quick else list(EVERY))
    rows = []
    if args.keep and out.with_suffix(".json").exists():
        rows = json.loads(out.with_suffix(".json").read_text())
    for spec in specs:
        for row in run_model(spec, variants, args.quick, args.device):
            again = [i for i, old in enumerate(rows) if _key(old) == _key(row)]
            if again:
                rows[again[0]] = row
            else:
                rows.append(row)
        lines = write_results(rows, out)  # after each model: a stopped run keeps its rows
    print("\n".join(lines))


if __name__ == "__main__":
    main()
