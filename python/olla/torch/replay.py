"""olla.torch.optimize(cuda_graph=True): the planned step captured as a CUDA graph and
replayed, without the executor's Python per op (docs/gpu.md).

A CUDA graph replays the kernels it recorded on the addresses it recorded: the plan's
addresses in the arena, the model's and the optimizer's tensors (which the step updates
in place), and static copies of the batch, into which each step copies its own batch.
The update's scalars (a learning rate, Adam's bias correction) are baked into the
kernels as they were at capture. So a graph is replayed only while those stay the same:
the same state tensors and the same scalars; a step where they differ runs op by op
(and drops the graph). A step is captured once the step before it ran op by op with the
same state and scalars and with nothing outside the plan: every address of the step is
then the arena's, fixed. A learning-rate schedule that changes every step, or Adam's
and AdamW's update without fused=True (its bias correction changes every step; the
fused kernel reads the step count from a tensor), never captures: those steps run op
by op, and `replays` says so.
"""

import torch

from . import arena as arenas
from .executor import flat_tensors


class CudaGraphReplay:
    """The capture and replay of one OllaStep's planned step."""

    def __init__(self):
        self.graph = None
        self.key = None  # The state and scalars the graph was captured with.
        self.batch = None  # Static copies of the batch, outside the arena.
        self.output = None  # The captured step's loss, in the arena.
        self.steady = None  # The key of the last step run op by op, if clean.
        self.captures = 0
        self.replays = 0

    @staticmethod
    def _key(state, scalars):
        return (tuple(t.data_ptr() if isinstance(t, torch.Tensor) else repr(t)
                      for t in state),
                tuple(tuple(values.items()) for values in scalars))

    def step(self, flat, batch_count, scalars, run_planned, executor, arena):
        """One step on the flat arguments (the batch their last `batch_count`):
        replayed, captured and replayed, or run by `run_planned(flat)` (which returns
        the loss and whether anything fell through the plan). Returns the loss."""
        split = len(flat) - batch_count
        state, batch = flat[:split], flat[split:]
        key = self._key(state, scalars)
        if self.graph is not None and key == self.key:
            return self._replay(batch)
        self.graph = self.output = self.batch = None  # Stale: its output holds arena bytes.
        if key == self.steady:
            self._capture(state, batch, key, executor, arena)
            return self._replay(batch)
        loss, clean = run_planned(flat)
        self.steady = key if clean else None
        return loss

    def _capture(self, state, batch, key, executor, arena):
        self.batch = [t.clone() for t in batch]  # No olla allocator installed: outside.
        graph = torch.cuda.CUDAGraph()
        # The capture runs on a stream of its own; the arena serves the stream current
        # when it is installed, so it is installed inside.
        with torch.cuda.graph(graph), arenas.installed(arena):
            (self.output,) = flat_tensors(executor.run(state + self.batch, arena))
        self.graph, self.key = graph, key
        self.captures += 1

    def _replay(self, batch):
        for static, given in zip(self.batch, batch):
            static.copy_(given)
        self.graph.replay()
        self.replays += 1
        return self.output
