"""Measured op costs: each op of a captured step timed on this machine, so that budget
mode chooses what to recompute by what it costs here rather than by an estimate from
shapes (docs/budget.md, "What it costs").

The traced step runs in its traced order on copies of its arguments, once to warm the
kernels' caches (a oneDNN convolution builds its primitive on its first call), then
`repeats` times; an op's cost is the median of its wall times, in seconds. Timings vary
from run to run, so a plan made from measured costs may differ between two captures;
the graph file keeps the costs, and planning that file again gives the same plan.
"""

import statistics
import time

import torch
from torch.utils._pytree import tree_flatten

from .executor import run_traced


def time_ops(graph, flat_arguments, repeats=3):
    """{op id: the median seconds of its runs} over 1 + repeats runs of graph.fx on
    flat_arguments (which every run updates), the first not counted."""
    times = {}
    clock = time.perf_counter
    started = 0.0

    def before(position):
        nonlocal started
        started = clock()

    def after(node, value):
        elapsed = clock() - started
        op = graph.op_of_node.get(node.name)
        if op is not None:
            times.setdefault(op, []).append(elapsed)

    run_traced(graph, flat_arguments)  # Warms the kernels' caches; not timed.
    for _ in range(repeats):
        run_traced(graph, flat_arguments, before, after)
    return {op: statistics.median(seconds) for op, seconds in times.items()}


def measure_costs(graph, repeats=3):
    """Sets every op's `cost` (seconds) in `graph`, a graph olla.capture made, from
    time_ops on copies of the step's arguments; an op the traced run never calls gets
    0. The CPU generator is left as it was. Returns the seconds spent."""
    if repeats < 1:
        raise ValueError(f"repeats: expected at least 1, got {repeats}")
    started = time.perf_counter()
    flat, _ = tree_flatten(graph.step.example_arguments())
    copies = [t.detach().clone() if isinstance(t, torch.Tensor) else t for t in flat]
    generator = torch.get_rng_state()
    try:
        times = time_ops(graph, copies, repeats)
    finally:
        torch.set_rng_state(generator)
    for op in graph.ops:
        op.cost = times.get(op.id, 0.0)
    return time.perf_counter() - started
