"""The largest batch that fits a memory: olla.torch.max_batch_size.

Captures are cheap (make_fx in fake mode: no activation is ever allocated), so the
search captures the step at each batch size it tries and asks what it needs:

- eager PyTorch: the bytes the CUDA caching allocator reserves for the step in its
  eager order, persistent state included (`olla simulate`'s model of it: 512-byte
  rounding, 2 MiB segments, blocks split and cached);
- olla: the persistent state plus the arena of olla's plan (order and placement, at
  512-byte alignment, with copy elimination: olla.capture.rewrites);
- olla with recomputation: the same, where order and placement alone do not fit,
  with a memory budget of `memory` less the persistent state, so that budget mode adds
  recomputation; a batch fits when the plan's added compute (estimated from shapes,
  docs/budget.md) is at most `recompute_overhead` of the step's. Where no such plan
  fits, the bytes shown are olla's without recomputation.

Memory is counted for tensors only: no CUDA context, cuDNN or cuBLAS workspace (on the
GPU leave room for them). The search doubles the batch until a size does not fit, then
bisects; it assumes memory grows with the batch. Every answer comes with its evidence:
the bytes at the batch found and at the next one (which does not fit).
"""

import dataclasses
import time
from typing import Optional

from .. import planning
from ..capture.step import capture_training_step
from ..capture.storage import CaptureError

_ALIGNMENT = 512  # The CUDA caching allocator's rounding, as `olla optimize` plans.


@dataclasses.dataclass
class Fit:
    """The largest batch that fits, for one way of running the step: `batch` (0 when
    not even 1 fits), `bytes` at it, `next_bytes` at batch + 1 (None when the search
    stopped at max_batch), and the sizes tried {batch: bytes}."""
    batch: int
    bytes: Optional[int]
    next_bytes: Optional[int]
    tried: dict
    # With recomputation: the compute each batch tried adds (0 where order and
    # placement alone fit; None where no plan fits within the overhead).
    added_compute: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class BatchSizes:
    """max_batch_size's answer: `memory` (bytes), `eager`, `olla` and `olla_recompute`
    (Fit), `recompute_overhead` (the added compute allowed), `seconds`."""
    memory: int
    eager: Fit
    olla: Fit
    olla_recompute: Fit
    recompute_overhead: float
    seconds: float

    def text(self):
        overhead = f"{100 * self.recompute_overhead:.0f}%"

        def needs(fit, batch, size):
            if batch in fit.added_compute and fit.added_compute[batch] is None:
                return f"batch {batch}: no plan within +{overhead} compute"
            return f"batch {batch} needs {_gib(size)}"

        def line(label, fit):
            if fit.batch == 0:
                return f"{label:<28} none: {needs(fit, min(fit.tried), fit.next_bytes)}"
            after = ("" if fit.next_bytes is None else
                     "; " + needs(fit, fit.batch + 1, fit.next_bytes))
            added = fit.added_compute.get(fit.batch)
            compute = f", +{100 * added:.1f}% compute" if added else ""
            return f"{label:<28} batch {fit.batch} ({_gib(fit.bytes)}{compute}{after})"
        return "\n".join([
            f"largest batch in {_gib(self.memory)}:",
            line("eager PyTorch", self.eager),
            line("olla (order and layout)", self.olla),
            line(f"olla, recompute <= {overhead}", self.olla_recompute),
            f"searched in {self.seconds:.1f} s"])


def _gib(size):
    return f"{size / 2**30:.3f} GiB"


def _largest(needs, memory, min_batch, max_batch):
    """The largest batch b in [min_batch, max_batch] with needs(b) <= memory, doubling
    then bisecting (0 when min_batch does not fit); needs(b) is memoised in
    Fit.tried."""
    tried = {}

    def fits(batch):
        if batch not in tried:
            tried[batch] = needs(batch)
        return tried[batch] <= memory

    if not fits(min_batch):
        return Fit(0, None, tried[min_batch], tried)
    low, high = min_batch, None
    while low < max_batch:
        candidate = min(2 * low, max_batch)
        if not fits(candidate):
            high = candidate
            break
        low = candidate
    if high is None:
        return Fit(low, tried[low], None, tried)
    while high - low > 1:
        middle = (low + high) // 2
        if fits(middle):
            low = middle
        else:
            high = middle
    return Fit(low, tried[low], tried[high], tried)


def max_batch_size(model, make_inputs, loss_fn, optimizer, memory, max_batch=1 << 16,
                   min_batch=1, time_limit=10.0, recompute_overhead=0.1, **options):
    """The largest batch of `model`'s training step that fits `memory` bytes: for eager
    PyTorch, for olla, and for olla with recomputation adding at most
    `recompute_overhead` (a fraction) of the step's compute.

    make_inputs(batch) -> (inputs, targets): the model's positional input tensors and
    the loss's targets at that batch size (loss_fn(model(*inputs), *targets)).
    optimizer: a torch.optim SGD, Adam or AdamW, or "sgd", "momentum", "adam".
    The search covers [min_batch, max_batch] (a model with batch norm over one sample
    needs min_batch=2). time_limit: seconds for each plan; options: those of
    olla.optimize_graph.
    Returns a BatchSizes; raises ValueError for bad arguments or a step olla cannot
    capture."""
    if not callable(make_inputs):
        raise ValueError("make_inputs: expected a callable batch -> (inputs, targets)")
    if isinstance(memory, bool) or not isinstance(memory, int) or memory <= 0:
        raise ValueError(f"memory: expected a positive number of bytes, got {memory!r}")
    for name, value in (("min_batch", min_batch), ("max_batch", max_batch)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name}: expected a positive integer, got {value!r}")
    if min_batch > max_batch:
        raise ValueError(f"min_batch: {min_batch} is above max_batch {max_batch}")
    if (isinstance(recompute_overhead, bool) or
            not isinstance(recompute_overhead, (int, float)) or
            not 0 <= recompute_overhead <= 10):
        raise ValueError(f"recompute_overhead: expected a fraction of the step's compute "
                         f"in [0, 10], got {recompute_overhead!r}")
    started = time.monotonic()

    def capture(batch, copy_elimination):
        made = make_inputs(batch)
        if not (isinstance(made, tuple) and len(made) == 2):
            raise ValueError(f"make_inputs({batch}): expected (inputs, targets), got "
                             f"{type(made).__name__}")
        inputs, targets = made
        try:
            return capture_training_step(model, list(inputs), loss_fn, list(targets),
                                         optimizer=optimizer, mode="train",
                                         name=f"{type(model).__name__}.b{batch}",
                                         copy_elimination=copy_elimination)
        except CaptureError as error:
            raise ValueError(f"olla cannot capture this model's step at batch {batch}: "
                             f"{error}") from None

    def eager_needs(batch):
        return planning.simulate(capture(batch, False))["eager_reserved_bytes"]

    def plan(graph, **more):
        return planning.optimize_graph(graph, time_limit=time_limit, alignment=_ALIGNMENT,
                                       **options, **more).report

    def olla_needs(batch):
        return plan(capture(batch, True))["total_bytes"]

    added = {}

    def recompute_needs(batch):
        graph = capture(batch, True)
        report = plan(graph)
        if report["total_bytes"] <= memory:
            added[batch] = 0.0
            return report["total_bytes"]
        budget = memory - graph.persistent_bytes()
        added[batch] = None
        if budget <= 0:
            return report["total_bytes"]
        try:
            budgeted = plan(graph, memory_budget=budget)
        except planning.NoPlanError:  # No plan fits, even recomputing.
            return report["total_bytes"]
        if budgeted.get("added_compute", 0.0) > recompute_overhead:
            return report["total_bytes"]
        added[batch] = budgeted.get("added_compute", 0.0)
        return budgeted["total_bytes"]

    eager = _largest(eager_needs, memory, min_batch, max_batch)
    olla = _largest(olla_needs, memory, min_batch, max_batch)
    olla_recompute = _largest(recompute_needs, memory, min_batch, max_batch)
    olla_recompute.added_compute = added
    return BatchSizes(memory, eager, olla, olla_recompute, recompute_overhead,
                      time.monotonic() - started)


_UNITS = {"": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12,
          "KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40,
          "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def parse_bytes(text):
    """'16GiB', '16G' (binary), '16GB' (decimal), '512MiB' or a number of bytes."""
    stripped = str(text).strip().upper().replace(" ", "")
    number = stripped.rstrip("KMGTIB")
    unit = stripped[len(number):]
    try:
        value = float(number)
    except ValueError:
        value = None
    if value is None or unit not in _UNITS or not value > 0 or value * _UNITS[unit] > 2**62:
        raise ValueError(f"memory: expected bytes such as 16GiB, 512MiB or 1000000, "
                         f"got '{text}'")
    return int(value * _UNITS[unit])
