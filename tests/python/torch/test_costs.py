"""Measured op costs (olla/torch/costs.py): every op of a captured step timed, written
in the graph, and used by budget mode, which then says so."""

import json

import pytest
import torch
from torch import nn

import olla
import olla.torch as olla_torch
from olla.capture import capture_training_step

from torch_models import mlp_batch, tanh_mlp
from olla.torch.costs import measure_costs


def test_every_op_gets_a_cost_and_budget_mode_uses_them():
    x, y = mlp_batch()
    graph = capture_training_step(tanh_mlp(), [x], nn.functional.cross_entropy, [y])
    state = torch.get_rng_state()
    measure_costs(graph, repeats=2)
    assert torch.equal(torch.get_rng_state(), state)
    costs = {op.type: op.cost for op in graph.ops}
    assert all(op.cost is not None and op.cost >= 0 for op in graph.ops)
    assert costs["aten::addmm"] > 0
    assert all("cost" in op for op in graph.to_json()["ops"])

    # Planning from the timings just taken would depend on the clock: the same costs in
    # a fixed form (each op's place in the step, in microseconds) reach the planner.
    for op in graph.ops:
        op.cost = (op.id + 1) * 1e-6
    bound = olla.simulate(graph)["lower_bound_bytes"]
    plan = olla.optimize_graph(graph, memory_budget=bound * 3 // 4, work_limit=100_000,
                               alignment=1)
    assert plan.recompute and plan.report["cost_source"] == "measured"
    for op in graph.ops:
        op.cost = None
    estimated = olla.optimize_graph(graph, work_limit=100_000, alignment=1,
                                    memory_budget=bound * 3 // 4)
    assert estimated.report["cost_source"] == "estimated from shapes"


def test_optimize_measures_costs_when_asked_and_checks_the_choice():
    x, y = mlp_batch()
    model = tanh_mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(ValueError, match="^costs: expected 'estimated' or 'measured', "
                                         "got 'timed'"):
        olla_torch.optimize(model, [x], nn.functional.cross_entropy, optimizer,
                            targets=[y], costs="timed")
    step = olla_torch.optimize(model, [x], nn.functional.cross_entropy, optimizer,
                               targets=[y], costs="measured", work_limit=10_000)
    assert step.timings["costs"] > 0
    assert all(op.cost is not None for op in step.graph.ops)
    assert json.loads(json.dumps(step.graph.to_json()))["ops"][0]["cost"] >= 0
