"""olla.torch.tradeoff: budget mode's memory-compute curve for the user's own model."""

import copy
import statistics
import time

from .. import planning
from .step import optimize


def tradeoff(model, example_inputs, loss_fn, optimizer, targets=(), points=10,
             time_limit=30.0, measure_steps=0, example_kwargs=None, **options):
    """The memory-compute curve of one training step of `model` with `optimizer`
    (an olla.Tradeoff; its points: budget_bytes, arena_bytes, added_compute,
    recomputed_ops, found_at_budget_bytes, plan), from the arena without recomputation
    down to the smallest arena budget mode reaches, `points` budgets in all
    (docs/budget.md).

    The step is captured, calibrated and checked as olla.torch.optimize does, on copies
    of the model and optimizer: the user's are never trained. With measure_steps=N,
    each distinct plan runs a warm-up step and N timed steps on those copies, and its
    points gain step_seconds, the median, and peak_bytes, the most a step held (its
    arena and the peak of what fell through it). time_limit covers the planning of the whole
    curve (a share for the plan without a budget, the rest for the curve); options are
    optimize_graph's (memory_budget excepted)."""
    planning.check_tradeoff_options(points, time_limit=time_limit, **options)
    if isinstance(measure_steps, bool) or not isinstance(measure_steps, int) \
            or measure_steps < 0:
        raise ValueError(f"measure_steps: expected an integer >= 0, got {measure_steps!r}")
    model, optimizer = copy.deepcopy((model, optimizer))
    started = time.monotonic()
    step = optimize(model, example_inputs, loss_fn, optimizer, targets=targets,
                    time_limit=time_limit / (points + 1), example_kwargs=example_kwargs,
                    **options)
    left = max(time_limit - (time.monotonic() - started), 0.1)
    options.setdefault("alignment", step.plan.alignment)
    curve = planning.tradeoff_graph(step.graph, points, time_limit=left, **options)
    if measure_steps:
        _time_plans(step, curve, list(example_inputs), targets, example_kwargs or {},
                    measure_steps)
    return curve


def _time_plans(step, curve, inputs, targets, kwargs, repeats):
    """Runs each distinct plan of `curve` in `step` (its model and optimizer the copies
    tradeoff made): a warm-up step, then `repeats` timed ones."""
    measured = {}
    for point in curve.points:
        plan = point["plan"]
        if plan is None:
            continue
        if id(plan) not in measured:
            step.use_plan(plan)
            step(*inputs, targets=targets, **kwargs)
            times, peak = [], 0
            for _ in range(repeats):
                began = time.perf_counter()
                step(*inputs, targets=targets, **kwargs)
                times.append(time.perf_counter() - began)
                peak = max(peak, step.last_stats.peak_bytes)
            measured[id(plan)] = statistics.median(times), peak
        point["step_seconds"], point["peak_bytes"] = measured[id(plan)]
