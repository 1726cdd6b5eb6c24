"""olla's Python side: capture PyTorch training steps as olla graphs (olla.capture)."""

__version__ = "0.1.0"
