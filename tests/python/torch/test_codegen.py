"""The executor's generated step (olla/torch/codegen.py): one call per op in the given
order, each value dropped right after its last use, the optimizer's scalars read at
run time, grad mode restored also when an op raises."""

import gc
import weakref

import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

from olla.torch.codegen import compile_steps
from olla.torch.executor import _release_lists, _Step


def traced(function, *examples):
    gm = make_fx(function)(*examples)
    nodes = list(gm.graph.nodes)
    placeholders = [n for n in nodes if n.op == "placeholder"]
    output = next(n for n in nodes if n.op == "output")
    steps = [_Step(n) for n in nodes if n.op == "call_function"]
    return placeholders, steps, output


def chain(x, w):
    a = torch.mul(x, w)
    b = torch.relu(a)
    c = torch.add(b, 1.0)
    return torch.sum(c) * 2.0, c


def test_values_are_dropped_after_their_last_use_and_ops_run_in_order():
    placeholders, steps, output = traced(chain, torch.randn(64), torch.randn(64))
    run = compile_steps(steps, placeholders, _release_lists(steps, output), output, {},
                        before=True, after=True)
    alive = {}  # node name -> weak reference to its value
    seen = []

    def before(position):
        gc.collect()
        seen.append((position, {name for name, ref in alive.items() if ref() is not None}))

    def after(node, value):
        alive[node.name] = weakref.ref(value)

    x, w = torch.randn(64), torch.randn(64)
    loss, c = run([x, w], before, after)
    assert torch.equal(loss, torch.sum(torch.relu(x * w) + 1.0) * 2.0)
    assert [position for position, _ in seen] == list(range(len(steps)))
    # mul's value is read by relu only: gone before add runs (position 2).
    mul = steps[0].node.name
    assert mul in seen[1][1] and mul not in seen[2][1]
    # add's value is an output of the step: alive to the end.
    assert torch.equal(c, torch.relu(x * w) + 1.0)


def test_a_scalar_slot_is_read_from_its_node_at_run_time():
    placeholders, steps, output = traced(lambda x: torch.mul(x, 3.0), torch.ones(4))
    mul = steps[0].node
    run = compile_steps(steps, placeholders, _release_lists(steps, output), output, {},
                        scalar_slots=[(mul, 1, 0, "lr")])
    assert torch.equal(run([torch.ones(4)]), torch.full((4,), 3.0))
    mul.args = (mul.args[0], 5.0)  # What capture.step.apply_scalars does per step.
    assert torch.equal(run([torch.ones(4)]), torch.full((4,), 5.0))
    assert "args[1]" in run.source


def test_grad_mode_is_each_ops_own_and_restored_when_an_op_raises():
    placeholders, steps, output = traced(lambda x: torch.mm(torch.relu(x), x),
                                         torch.ones(2, 2))
    run = compile_steps(steps, placeholders, _release_lists(steps, output), output, {})
    assert "set_grad(True)" in run.source  # Untagged nodes are forward ops.
    with torch.no_grad():
        with pytest.raises(RuntimeError):
            run([torch.ones(2, 3)])  # mm of 2x3 by 2x3 raises inside the step.
        assert not torch.is_grad_enabled()
