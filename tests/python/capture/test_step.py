"""Every op of a captured step names the module it belongs to: forward ops the module
whose forward ran them, backward ops the module whose gradient they compute, optimizer
ops the module of the parameter they update (olla's report names the layer at the
peak with it)."""

import torch
import torch.nn.functional as F
from torch import nn

from olla.capture import capture_training_step


class Block(nn.Module):

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.relu = nn.ReLU(inplace=True)
        self.head = nn.Linear(8 * 4 * 4, 5)

    def forward(self, x):
        return self.head(torch.flatten(self.relu(self.bn(self.conv(x))), 1))


def capture(optimizer="sgd"):
    torch.manual_seed(0)
    return capture_training_step(Block(), (torch.randn(2, 3, 4, 4),), F.cross_entropy,
                                 targets=(torch.tensor([1, 3]),), optimizer=optimizer)


def module_of(op):
    return op.name.split("/")[0] if "/" in op.name else ""


def ops_named(graph, type_name, phase):
    return [op for op in graph.ops if op.type == type_name and op.phase == phase]


def test_backward_ops_name_the_module_whose_gradient_they_compute():
    graph = capture()
    (conv_backward,) = ops_named(graph, "aten::convolution_backward", "backward")
    (bn_backward,) = ops_named(graph, "aten::native_batch_norm_backward", "backward")
    (relu_backward,) = ops_named(graph, "aten::threshold_backward", "backward")
    assert module_of(conv_backward) == "conv"
    assert module_of(bn_backward) == "bn"
    assert module_of(relu_backward) == "relu"  # In place: it reads the ReLU's output.
    head = [op for op in graph.ops if op.phase == "backward" and op.type == "aten::mm"]
    assert head and all(module_of(op) == "head" for op in head)


def test_optimizer_ops_name_the_module_of_their_parameter():
    for optimizer in ("sgd", "adam"):
        graph = capture(optimizer)
        updates = [op for op in graph.ops if op.phase == "optimizer"]
        assert updates
        modules = {module_of(op) for op in updates}
        assert modules == {"conv", "bn", "head"}, (optimizer, modules)
