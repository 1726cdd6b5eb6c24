"""olla.torch.optimize never plans a step that trains another model: the traced step is
checked against an eager step first (olla/torch/self_check.py), batches must come in
the layout the step was traced for, the trainable parameters must stay those traced,
and bad arguments are refused before any capture."""

import copy
import warnings

import pytest
import torch
from torch import nn

import olla.torch as olla_torch
import olla.torch.step as step_module
from olla.torch.memory import eager_step

cross_entropy = nn.functional.cross_entropy


def flattening_cnn():
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                         nn.Flatten(), nn.Linear(4 * 6 * 6, 5))


def batch():
    generator = torch.Generator().manual_seed(3)
    return (torch.randn(4, 3, 6, 6, generator=generator),
            torch.randint(0, 5, (4,), generator=generator))


def optimize(model, x, y, **options):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    return olla_torch.optimize(model, [x], cross_entropy, optimizer, targets=[y],
                               work_limit=10_000, **options)


def test_the_self_check_compares_every_tensor_the_step_updates():
    x, y = batch()
    step = optimize(flattening_cnn(), x, y)
    # The loss, 6 parameters, 3 batch-norm buffers, 6 momentum buffers.
    assert step.self_check.tensors == 16
    assert step.self_check.eager_peak_bytes > 0
    assert step.timings["self_check"] > 0


def _plant_wrong_strides(monkeypatch):
    """Makes the capture record nn.Flatten's view with strides that do not hold for
    the real tensor, as torch 1.13's tracer did for maxvit_t's window partition."""
    capture = step_module.capture_training_step
    planted = []

    def capture_with_a_fault(*args, **kwargs):
        graph = capture(*args, **kwargs)
        for node in graph.fx.graph.nodes:
            if node.target is torch.ops.aten.view.default and len(node.args[1]) == 2:
                rows, columns = node.args[1]
                node.target = torch.ops.aten.as_strided.default
                node.args = (node.args[0], [rows, columns], [1, rows])
                planted.append(node.name)
                break
        graph.fx.recompile()
        return graph

    monkeypatch.setattr(step_module, "capture_training_step", capture_with_a_fault)
    return planted


def test_a_planted_wrong_stride_is_refused_naming_its_op(monkeypatch):
    planted = _plant_wrong_strides(monkeypatch)
    x, y = batch()
    with pytest.raises(olla_torch.SelfCheckError) as error:
        optimize(flattening_cnn(), x, y)
    assert planted, "the fault was planted"
    message = str(error.value)
    assert "does not compute what eager PyTorch computes" in message
    assert f"aten.as_strided.default (node {planted[0]}" in message
    assert "\n" not in message


def test_without_the_self_check_a_warning_says_the_step_is_unchecked(monkeypatch):
    _plant_wrong_strides(monkeypatch)
    x, y = batch()
    with pytest.warns(UserWarning, match="not compared with eager"):
        step = optimize(flattening_cnn(), x, y, self_check=False)
    assert step.self_check is None


def test_optimize_leaves_the_random_generator_as_it_was():
    model = nn.Sequential(nn.Flatten(), nn.Dropout(0.5), nn.Linear(3 * 6 * 6, 5))
    x, y = batch()
    torch.manual_seed(7)
    optimize(model, x, y)
    after = torch.rand(3)
    torch.manual_seed(7)
    assert torch.equal(after, torch.rand(3))


def test_a_batch_in_another_layout_is_refused():
    x, y = batch()
    step = optimize(flattening_cnn(), x, y)
    with pytest.raises(ValueError, match=r"inputs\[0\]: strides .* differ from the "
                       r"captured \(108, 36, 6, 1\)"):
        step(x.to(memory_format=torch.channels_last), targets=[y])
    permuted = x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
    with pytest.raises(ValueError, match="another memory format or a permuted view"):
        step(permuted, targets=[y])


def test_a_batch_sliced_from_a_larger_tensor_trains_as_eager():
    x, y = batch()
    data = torch.cat([torch.randn(2, 3, 6, 6), x])
    model = flattening_cnn()
    reference = copy.deepcopy(model)
    reference_optimizer = torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    step = optimize(model, data[2:], y)
    for _ in range(2):
        loss = step(data[2:], targets=[y])
        expected = eager_step(reference, reference_optimizer, cross_entropy, [x], [y])
        assert torch.equal(loss, expected)


def test_a_parameter_unfrozen_after_planning_is_refused():
    model = flattening_cnn()
    model[0].weight.requires_grad_(False)
    x, y = batch()
    optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad],
                                lr=0.1)
    step = olla_torch.optimize(model, [x], cross_entropy, optimizer, targets=[y],
                               work_limit=10_000)
    model[0].weight.requires_grad_(True)
    optimizer.add_param_group({"params": [model[0].weight]})
    with pytest.raises(ValueError, match="parameter '0.weight' requires grad now"):
        step(x, targets=[y])
    model[0].weight.requires_grad_(False)
    step(x, targets=[y])
    model[0].weight.requires_grad_(True)
    del optimizer.param_groups[1]
    with pytest.raises(ValueError, match="parameter '0.weight' requires grad now"):
        step(x, targets=[y])


def test_a_parameter_added_to_the_optimizer_after_planning_is_refused():
    model = flattening_cnn()
    x, y = batch()
    step = optimize(model, x, y)
    step.optimizer.add_param_group({"params": [nn.Parameter(torch.zeros(3))]})
    with pytest.raises(ValueError, match=r"optimizer: param_groups\[1\] holds a "
                       r"parameter the step was not traced with"):
        step(x, targets=[y])


def test_a_loss_fn_that_returns_a_tuple_is_refused_at_capture():
    x, y = batch()
    model = flattening_cnn()
    with pytest.raises(ValueError, match="loss_fn returned a tuple; expected the loss"):
        olla_torch.optimize(model, [x], lambda out, t: (cross_entropy(out, t), out),
                            torch.optim.SGD(model.parameters(), lr=0.1), targets=[y])


@pytest.mark.parametrize("options, words", [
    ({"work_limit": -1}, "work_limit"),
    ({"time_limit": 0}, "time_limit"),
    ({"schedule_method": "magic"}, "schedule_method"),
    ({"no_such_option": 1}, "no_such_option"),
    ({"self_check": "yes"}, "self_check: expected True or False"),
])
def test_bad_options_are_refused_before_the_capture(monkeypatch, options, words):
    def capture_must_not_run(*args, **kwargs):
        raise AssertionError("captured before the options were checked")

    monkeypatch.setattr(step_module, "capture_training_step", capture_must_not_run)
    x, y = batch()
    model = flattening_cnn()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=words):
            olla_torch.optimize(model, [x], cross_entropy,
                                torch.optim.SGD(model.parameters(), lr=0.1),
                                targets=[y], **options)
