"""olla inside PyTorch: olla.torch.optimize plans a training step of the user's model
and optimizer and runs it in olla's order in the planned arena; olla.torch.measure
compares its memory with eager PyTorch's; olla.torch.max_batch_size finds the largest
batch that fits a memory; olla.torch.tradeoff gives budget mode's memory-compute curve
(docs/torch.md)."""

from .batch import BatchSizes, Fit, max_batch_size
from .memory import eager_step, measure, resident_peak_bytes
from .self_check import SelfCheckError
from .step import OllaStep, optimize
from .tradeoff import tradeoff

__all__ = ["BatchSizes", "Fit", "OllaStep", "SelfCheckError", "eager_step",
           "max_batch_size", "measure", "optimize", "resident_peak_bytes", "tradeoff"]
