"""olla inside PyTorch: olla.torch.optimize plans a training step of the user's model
and optimizer and runs it in olla's order in the planned arena; olla.torch.measure
compares its memory with eager PyTorch's (docs/torch.md)."""

from .memory import eager_step, measure, resident_peak_bytes
from .step import OllaStep, optimize

__all__ = ["OllaStep", "eager_step", "measure", "optimize", "resident_peak_bytes"]
