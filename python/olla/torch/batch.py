"""The largest batch that fits a memory: olla.torch.max_batch_size.

Captures are cheap (make_fx in fake mode: no activation is ever allocated), so the
search captures the step at each batch size it tries and asks what it needs:

- eager PyTorch: the bytes the CUDA caching allocator reserves for the step in its
  eager order, persistent state included (`olla simulate`'s model of it: 512-byte
  rounding, 2 MiB segments, blocks split and cached);
- olla: the persistent state plus the arena of olla's plan (order and placement, at
  512-byte alignment, with copy elimination: olla.capture.rewrites);
- olla with recomputation: not built yet, so reported as None.

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


@dataclasses.dataclass
class BatchSizes:
    """max_batch_size's answer: `memory` (bytes), `eager` and `olla` (Fit),
    `olla_recompute` (None: recomputation is not built yet), `seconds`."""
    memory: int
    eager: Fit
    olla: Fit
    olla_recompute: Optional[Fit]
    seconds: float

    def text(self):
        def line(label, fit):
            if fit is None:
                return f"{label:<28} not available yet (recomputation is not built)"
            if fit.batch == 0:
                smallest = min(fit.tried)
                return f"{label:<28} none: batch {smallest} needs {_gib(fit.next_bytes)}"
            after = ("" if fit.next_bytes is None else
                     f"; batch {fit.batch + 1} needs {_gib(fit.next_bytes)}")
            return f"{label:<28} batch {fit.batch} ({_gib(fit.bytes)}{after})"
        return "\n".join([
            f"largest batch in {_gib(self.memory)}:",
            line("eager PyTorch", self.eager),
            line("olla (order and layout)", self.olla),
            line("olla with recomputation", self.olla_recompute),
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
                   min_batch=1, time_limit=10.0, **options):
    """The largest batch of `model`'s training step that fits `memory` bytes: for eager
    PyTorch, for olla, and (not built yet: None) for olla with recomputation.

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

    def olla_needs(batch):
        report = planning.optimize_graph(capture(batch, True), time_limit=time_limit,
                                         alignment=_ALIGNMENT, **options).report
        return report["total_bytes"]

    eager = _largest(eager_needs, memory, min_batch, max_batch)
    olla = _largest(olla_needs, memory, min_batch, max_batch)
    return BatchSizes(memory, eager, olla, None, time.monotonic() - started)


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
