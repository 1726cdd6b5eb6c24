"""Copy elimination (olla.capture.rewrites): where it applies, where it must not, and
that a rewritten step computes the same gradients bit for bit."""

import torch
import torchvision

from olla.capture import capture_training_step
from olla.capture.rewrites import REWRITES
from olla.capture.step import TrainingStep, trace

aten = torch.ops.aten
cross_entropy = torch.nn.functional.cross_entropy


def batch():
    generator = torch.Generator().manual_seed(3)
    return (torch.randn(2, 3, 32, 32, generator=generator),
            torch.randint(0, 10, (2,), generator=generator))


def test_every_rewrite_says_why_it_is_exact():
    for name, reason, apply in REWRITES:
        assert name and len(reason) > 40 and callable(apply)


def test_mobilenet_v2_loses_the_copies_of_its_relu6_inputs():
    model = torchvision.models.mobilenet_v2(num_classes=10)
    x, y = batch()
    plain = capture_training_step(model, [x], cross_entropy, [y], "sgd")
    rewritten = capture_training_step(model, [x], cross_entropy, [y], "sgd",
                                      copy_elimination=True)
    assert rewritten.metadata["rewrites"] == {"hardtanh_backward_from_output": 35}
    assert "rewrites" not in plain.metadata
    assert len(plain.ops) - len(rewritten.ops) == 35
    backward = [node for node in rewritten.fx.graph.nodes
                if node.target is aten.hardtanh_backward.default]
    assert len(backward) == 35
    assert all(node.args[1].target is aten.hardtanh_.default for node in backward)


class ClampedThenScaled(torch.nn.Module):
    """A ReLU6 whose output is written again before the backward reads it: the clone
    autograd saved is the only copy of the clamped values' order, and must stay."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)

    def forward(self, x):
        h = self.conv(x)
        torch.nn.functional.hardtanh(h, 0.0, 0.5, inplace=True)
        h.mul_(3.0)
        return h.flatten(1)[:, :10]


def gradients(model, x, y, copy_elimination):
    step = TrainingStep(model, [x], cross_entropy, [y], "sgd")
    gm, _ = trace(step)
    if copy_elimination:
        from olla.capture.rewrites import eliminate_copies
        applied = eliminate_copies(gm)
    else:
        applied = {}
    parameters = [p.detach().clone() for p in step.parameters]
    arguments = list(step.example_arguments())
    arguments[0] = parameters
    gm(*arguments)
    return parameters, applied


def test_a_clamp_written_again_is_left_alone():
    torch.manual_seed(0)
    model = ClampedThenScaled()
    x, y = batch()
    expected, _ = gradients(model, x, y, copy_elimination=False)
    updated, applied = gradients(model, x, y, copy_elimination=True)
    assert applied == {}
    for a, b in zip(updated, expected):
        assert torch.equal(a, b)


def test_rewritten_mobilenet_updates_bit_for_bit():
    torch.manual_seed(0)
    model = torchvision.models.mobilenet_v2(num_classes=10).train()
    model.classifier[0].p = 0.0  # No dropout mask to replay between the two runs.
    x, y = batch()
    expected, _ = gradients(model, x, y, copy_elimination=False)
    updated, applied = gradients(model, x, y, copy_elimination=True)
    assert applied == {"hardtanh_backward_from_output": 35}
    for a, b in zip(updated, expected):
        assert torch.equal(a, b)
