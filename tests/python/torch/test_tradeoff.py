"""olla.torch.tradeoff and olla.tradeoff_graph: budget mode's memory-compute curve for a
user's model, from the arena without recomputation down, monotone, the user's model
untouched."""

import pytest
import torch
from torch import nn

import olla
import olla.torch as olla_torch
from olla.capture import capture_training_step

from torch_models import mlp_batch, tanh_mlp


def check_curve(curve):
    budgets = [p["budget_bytes"] for p in curve.points]
    assert budgets == sorted(budgets, reverse=True) and len(set(budgets)) == len(budgets)
    added = [p["added_compute"] for p in curve.points]
    assert added == sorted(added) and added[0] == 0 and added[-1] > 0
    for point in curve.points:
        assert point["arena_bytes"] <= point["budget_bytes"]
        assert point["plan"].arena_bytes == point["arena_bytes"]
    floors = curve.searched_floor_bytes, curve.recompute_floor_bytes
    assert curve.points[-1]["budget_bytes"] >= floors[0] >= floors[1]


def test_the_curve_of_a_users_model_with_step_times():
    x, y = mlp_batch()
    model = tanh_mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    before = [p.detach().clone() for p in model.parameters()]
    curve = olla_torch.tradeoff(model, [x], nn.functional.cross_entropy, optimizer,
                                targets=[y], points=4, work_limit=400_000,
                                measure_steps=1,
                                time_limit=3600)  # wall clock: far away, work stops it
    check_curve(curve)
    assert all(p["step_seconds"] > 0 for p in curve.points)
    assert all(p["peak_bytes"] >= p["arena_bytes"] for p in curve.points)
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters()))
    assert "recompute floor" in curve.text()


def test_the_curve_of_a_graph_and_its_errors():
    x, y = mlp_batch()
    graph = capture_training_step(tanh_mlp(), [x], nn.functional.cross_entropy, [y])
    curve = olla.tradeoff_graph(graph, points=3, work_limit=400_000, alignment=1,
                                time_limit=3600)  # wall clock: far away, work stops it
    check_curve(curve)
    with pytest.raises(ValueError, match="^points: must be an integer from 2 to 100, "
                                         "got 1$"):
        olla.tradeoff_graph(graph, points=1, work_limit=1)
    with pytest.raises(ValueError, match="^memory_budget: tradeoff sets its own budgets$"):
        olla.tradeoff_graph(graph, memory_budget=10, work_limit=1)
    with pytest.raises(ValueError, match="^points: must be an integer from 2 to 100"):
        olla_torch.tradeoff(tanh_mlp(), [x], nn.functional.cross_entropy,
                            torch.optim.SGD(tanh_mlp().parameters(), lr=0.1), targets=[y],
                            points=0, work_limit=1)
