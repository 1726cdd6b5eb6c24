"""Capture PyTorch training steps as olla graphs.

    graph = capture_training_step(model, (images,), loss_fn, targets=(labels,))
    save(graph, "model.json.gz")
"""

from .graph import Buffer, Graph, Op, save
from .step import TrainingStep, capture_training_step
from .storage import CaptureError

__all__ = ["Buffer", "CaptureError", "Graph", "Op", "TrainingStep",
           "capture_training_step", "save"]
