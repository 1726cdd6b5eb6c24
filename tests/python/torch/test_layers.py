"""Every activation and normalization layer of torch.nn, through three olla steps, equals
eager PyTorch bit for bit: the captured graph keeps the kernels eager runs (torch 1.13's
tracer expanded SiLU's and Mish's backward into sigmoid, mul and add, which round
otherwise; torch 2.11's keeps silu_backward and mish_backward)."""

import copy
import inspect

import pytest
import torch
from torch import nn

import olla.torch as olla_torch
from olla.torch.memory import eager_step

BATCH = 4
FEATURES = 48
# The input shape each layer gets, by its rank: (BATCH,) + SHAPES[rank].
SHAPES = {2: (FEATURES,), 3: (4, 12), 4: (4, 3, 4), 5: (4, 2, 3, 2)}


class _Attention(nn.Module):
    """nn.MultiheadAttention as a layer: self-attention, the output alone."""

    def __init__(self):
        super().__init__()
        self.attention = nn.MultiheadAttention(12, 2, batch_first=True)

    def forward(self, x):
        return self.attention(x, x, x)[0]


# Layers that need constructor arguments, or an input of another rank than 2.
LAYERS = {
    "Threshold": (lambda: nn.Threshold(0.1, 20.0), 2),
    "GLU": (nn.GLU, 2),
    "MultiheadAttention": (_Attention, 3),
    "Softmax": (lambda: nn.Softmax(dim=-1), 2),
    "Softmin": (lambda: nn.Softmin(dim=-1), 2),
    "LogSoftmax": (lambda: nn.LogSoftmax(dim=-1), 2),
    "Softmax2d": (nn.Softmax2d, 4),
    "PReLU": (nn.PReLU, 2),
    "BatchNorm1d": (lambda: nn.BatchNorm1d(4), 3),
    "BatchNorm2d": (lambda: nn.BatchNorm2d(4), 4),
    "BatchNorm3d": (lambda: nn.BatchNorm3d(4), 5),
    "InstanceNorm1d": (lambda: nn.InstanceNorm1d(4, affine=True), 3),
    "InstanceNorm2d": (lambda: nn.InstanceNorm2d(4, track_running_stats=True), 4),
    "InstanceNorm3d": (lambda: nn.InstanceNorm3d(4, affine=True), 5),
    "LayerNorm": (lambda: nn.LayerNorm(12), 3),
    "GroupNorm": (lambda: nn.GroupNorm(2, 4), 4),
    "LocalResponseNorm": (lambda: nn.LocalResponseNorm(2), 4),
    "CrossMapLRN2d": (lambda: nn.CrossMapLRN2d(3), 4),
    "RMSNorm": (lambda: nn.RMSNorm(12), 3),
}
# Layers whose step allocates memory the plan does not place: CrossMapLRN2d (a legacy
# autograd.Function) grows empty tensors with resize_as_, a new storage that olla's
# graph does not model; those allocations fall through to the system allocator,
# counted, and the values are still eager's.
FALLS_THROUGH = {"CrossMapLRN2d"}
# What the sweep leaves out, and why.
SKIPPED = {
    "SyncBatchNorm": "needs a process group and CUDA tensors",
}


def _layer_classes():
    """Every public layer class of torch.nn's activation and normalization modules."""
    classes = {}
    for module in (nn.modules.activation, nn.modules.normalization,
                   nn.modules.batchnorm, nn.modules.instancenorm):
        for name, value in vars(module).items():
            if (inspect.isclass(value) and issubclass(value, nn.Module)
                    and value.__module__ == module.__name__ and not name.startswith("_")
                    and not name.startswith("Lazy") and name in nn.__dict__):
                classes[name] = value
    return sorted(set(classes) - set(SKIPPED))


class _Model(nn.Module):
    """Linear, reshaped to the layer's input rank, the layer, flattened, Linear."""

    def __init__(self, layer, rank):
        super().__init__()
        self.body = nn.Linear(8, FEATURES)
        self.shape = SHAPES[rank]
        self.layer = layer
        with torch.no_grad():
            width = self._features(torch.zeros(BATCH, 8)).shape[1]
        self.head = nn.Linear(width, 3)

    def _features(self, x):
        return self.layer(self.body(x).reshape((BATCH,) + self.shape)).flatten(1)

    def forward(self, x):
        return self.head(self._features(x))


def test_the_sweep_knows_every_layer_it_cannot_build_without_arguments():
    for name in _layer_classes():
        if name not in LAYERS:
            getattr(nn, name)()  # Raises TypeError: add the layer to LAYERS.


@pytest.mark.parametrize("name", _layer_classes())
def test_three_olla_steps_equal_eager_steps(name):
    make, rank = LAYERS.get(name, (getattr(nn, name), 2))
    torch.manual_seed(0)
    model = _Model(make(), rank)
    reference = copy.deepcopy(model)
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(BATCH, 8, generator=generator)
    y = torch.randint(0, 3, (BATCH,), generator=generator)
    loss_fn = nn.functional.cross_entropy
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    reference_optimizer = torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    step = olla_torch.optimize(model, [x], loss_fn, optimizer, targets=[y],
                               work_limit=10_000)
    for seed in range(3):
        torch.manual_seed(seed)  # RReLU draws the same slopes
        loss = step(x, targets=[y])
        torch.manual_seed(seed)
        expected = eager_step(reference, reference_optimizer, loss_fn, [x], [y])
        assert torch.equal(loss, expected), f"step {seed}: {loss} != {expected}"
        assert (step.last_stats.fell_through == 0) == (name not in FALLS_THROUGH)
    for (key, ours), theirs in zip(model.state_dict().items(),
                                   reference.state_dict().values()):
        assert torch.equal(ours, theirs), f"{key} differs"


class _Recurrent(nn.Module):
    """A recurrent layer over a sequence of 6 steps, its last output classified."""

    def __init__(self, kind):
        super().__init__()
        self.rnn = kind(8, 16, num_layers=2, batch_first=True)
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        output, _ = self.rnn(x)
        return self.head(output[:, -1])


@pytest.mark.parametrize("kind", [nn.LSTM, nn.GRU, nn.RNN], ids=lambda k: k.__name__)
def test_recurrent_layers_train_as_eager(kind):
    torch.manual_seed(0)
    model = _Recurrent(kind)
    reference = copy.deepcopy(model)
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(BATCH, 6, 8, generator=generator)
    y = torch.randint(0, 3, (BATCH,), generator=generator)
    loss_fn = nn.functional.cross_entropy
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    reference_optimizer = torch.optim.Adam(reference.parameters(), lr=1e-2)
    step = olla_torch.optimize(model, [x], loss_fn, optimizer, targets=[y],
                               work_limit=10_000)
    for _ in range(3):
        loss = step(x, targets=[y])
        expected = eager_step(reference, reference_optimizer, loss_fn, [x], [y])
        assert torch.equal(loss, expected)
    for ours, theirs in zip(model.parameters(), reference.parameters()):
        assert torch.equal(ours, theirs)
