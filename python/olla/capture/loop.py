"""What a training loop does around one update, as olla traces it and as eager PyTorch
runs it: micro-batches whose gradients accumulate into one update, autocast around the
forward pass and the loss, and the user's code between the backward pass and the
update (gradient clipping). One definition serves both: TrainingStep traces it, and
Loop.eager_step is the eager step it must equal (olla.torch's self-check runs it).
"""

import contextlib
import dataclasses
import itertools
from typing import Callable, Optional

import torch

# The dtypes olla traces torch.autocast with (on the CPU and CUDA alike).
AUTOCAST_DTYPES = (torch.bfloat16, torch.float16)


def model_device(model, inputs=()):
    """The device of the model's first parameter or buffer, else of its first input
    (the CPU for none): where its step runs, and the device type of its autocast."""
    for tensor in itertools.chain(model.parameters(), model.buffers(), inputs):
        return tensor.device
    return torch.device("cpu")


@dataclasses.dataclass(frozen=True)
class Loop:
    """accumulate: the batch is `accumulate` micro-batches (equal slices of every
    input and target along dimension 0), each with its own forward, loss and backward,
    their gradients summed into one update as loss.backward() sums them into .grad
    (scale the loss in loss_fn if a mean is wanted). autocast: a dtype, the forward
    pass and the loss run in torch.autocast(the step's device type, dtype) as eager
    code puts them.
    before_update: a function of no arguments, called once the gradients are in the
    parameters' .grad and before the optimizer's update, for what loops do there
    (torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)); in the traced step it
    sees the traced parameters through the model and the optimizer's param groups."""
    accumulate: int = 1
    autocast: Optional[torch.dtype] = None
    before_update: Optional[Callable[[], None]] = None

    def __post_init__(self):
        if isinstance(self.accumulate, bool) or not isinstance(self.accumulate, int) \
                or self.accumulate < 1:
            raise ValueError(f"accumulate: expected a positive number of micro-batches, "
                             f"got {self.accumulate!r}")
        if self.autocast is not None and self.autocast not in AUTOCAST_DTYPES:
            raise ValueError(f"autocast: expected torch.bfloat16, torch.float16 or None, "
                             f"got {self.autocast!r}")
        if self.before_update is not None and not callable(self.before_update):
            raise ValueError(f"before_update: expected a function of no arguments, got "
                             f"{type(self.before_update).__name__}")

    def description(self):
        """The loop as the graph's metadata records it."""
        return {"accumulate": self.accumulate,
                "autocast": str(self.autocast).replace("torch.", "") if self.autocast
                else None,
                "before_update": getattr(self.before_update, "__qualname__", None)}

    def micro_batches(self, inputs, kwargs, targets):
        """[(inputs, kwargs, targets)] per micro-batch: views, nothing copied."""
        if self.accumulate == 1:
            return [(list(inputs), dict(kwargs), list(targets))]
        named = ([(f"inputs[{i}]", t) for i, t in enumerate(inputs)]
                 + [(f"keyword input '{k}'", t) for k, t in kwargs.items()]
                 + [(f"targets[{i}]", t) for i, t in enumerate(targets)])
        for name, tensor in named:
            if tensor.dim() == 0 or tensor.shape[0] % self.accumulate:
                rows = tensor.shape[0] if tensor.dim() else "no"
                raise ValueError(f"accumulate={self.accumulate}: {name} has {rows} rows "
                                 f"along dimension 0, not a multiple of "
                                 f"{self.accumulate} micro-batches")

        def split(tensor):
            return tensor.split(tensor.shape[0] // self.accumulate)

        inputs = [split(t) for t in inputs]
        kwargs = {k: split(t) for k, t in kwargs.items()}
        targets = [split(t) for t in targets]
        return [([t[m] for t in inputs], {k: t[m] for k, t in kwargs.items()},
                 [t[m] for t in targets]) for m in range(self.accumulate)]

    def autocast_context(self, device):
        """torch.autocast with this loop's dtype for `device`'s type (the step's
        device: an autocast region of another device type casts nothing here)."""
        if self.autocast is None:
            return contextlib.nullcontext()
        return torch.autocast(torch.device(device).type, dtype=self.autocast)

    def eager_step(self, model, optimizer, loss_fn, inputs, targets=(), kwargs=None):
        """One training step as eager code writes this loop; returns the loss (summed
        over the micro-batches), detached."""
        optimizer.zero_grad(set_to_none=True)
        device = model_device(model, inputs)
        total = None
        for micro_inputs, micro_kwargs, micro_targets in self.micro_batches(
                inputs, kwargs or {}, targets):
            with self.autocast_context(device):
                loss = loss_fn(model(*micro_inputs, **micro_kwargs), *micro_targets)
            loss.backward()
            total = loss.detach() if total is None else total + loss.detach()
        if self.before_update is not None:
            self.before_update()
        optimizer.step()
        return total
