"""The traced optimizer updates do what torch.optim does: from fresh state, one update
equals torch.optim's first step with default options."""

import pytest
import torch

from olla.capture.optimizers import Optimizer


@pytest.mark.parametrize("name,reference", [
    ("sgd", lambda ps: torch.optim.SGD(ps, lr=0.1, foreach=False)),
    ("momentum", lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, foreach=False)),
    ("adam", lambda ps: torch.optim.Adam(ps, lr=0.1, foreach=False)),
])
def test_one_update_equals_torch_optim_first_step(name, reference):
    torch.manual_seed(0)
    parameters = [torch.randn(5, 3), torch.randn(7)]
    gradients = [torch.randn(5, 3), torch.randn(7)]

    expected = [p.clone().requires_grad_() for p in parameters]
    for p, g in zip(expected, gradients):
        p.grad = g.clone()
    reference(expected).step()

    actual = [p.clone() for p in parameters]
    optimizer = Optimizer(name, actual, lr=0.1)
    state = optimizer.initial_state(actual)
    assert len(state) == len(optimizer.state_names())
    with torch.no_grad():
        optimizer.update(actual, gradients, state, optimizer.scalar_values())
    for a, e in zip(actual, expected):
        torch.testing.assert_close(a, e.detach())


def test_unknown_optimizer_is_named():
    with pytest.raises(ValueError, match="unknown optimizer 'rmsprop'"):
        Optimizer("rmsprop", [], lr=0.1)
