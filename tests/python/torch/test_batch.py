"""olla.torch.max_batch_size and `python -m olla.torch.max_batch`: the search, its
evidence checked by capturing again, and the errors."""

import json
import subprocess
import sys

import pytest
import torch

import olla
import olla.torch as olla_torch
from olla.capture import capture_training_step
from olla.torch import max_batch
from olla.torch.batch import _largest, parse_bytes

from conftest import ROOT


def test_the_search_finds_the_boundary_with_its_evidence():
    needs = lambda batch: 1000 + 37 * batch  # noqa: E731
    fit = _largest(needs, memory=5000, min_batch=1, max_batch=1 << 16)
    assert fit.batch == (5000 - 1000) // 37
    assert fit.bytes == needs(fit.batch) <= 5000 < fit.next_bytes == needs(fit.batch + 1)
    assert len(fit.tried) <= 20
    assert _largest(needs, 1000, 1, 100).batch == 0
    capped = _largest(needs, 10**9, 1, 100)
    assert capped.batch == 100 and capped.next_bytes is None
    assert _largest(needs, 5000, 50, 1000).batch == fit.batch


class SmallConvNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(3, 32, 3, padding=1), torch.nn.ReLU(inplace=True),
            torch.nn.Conv2d(32, 32, 3, padding=1), torch.nn.ReLU(inplace=True),
            torch.nn.MaxPool2d(2), torch.nn.Conv2d(32, 64, 3, padding=1),
            torch.nn.ReLU(inplace=True), torch.nn.AdaptiveAvgPool2d(1))
        self.head = torch.nn.Linear(64, 10)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def make_inputs(batch):
    return [torch.randn(batch, 3, 32, 32)], [torch.randint(0, 10, (batch,))]


def test_olla_fits_a_larger_batch_and_the_evidence_holds_when_captured_again():
    model = SmallConvNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss_fn = torch.nn.functional.cross_entropy
    memory = 64 << 20
    sizes = olla_torch.max_batch_size(model, make_inputs, loss_fn, optimizer, memory,
                                      work_limit=20_000)
    assert 1 <= sizes.eager.batch < sizes.olla.batch <= sizes.olla_recompute.batch
    for fit in (sizes.eager, sizes.olla, sizes.olla_recompute):
        assert fit.bytes <= memory < fit.next_bytes
    # Independently: capture and plan at the batches found and one above.
    def eager_bytes(batch):
        graph = capture_training_step(model, *make_inputs(batch)[:1], loss_fn,
                                      make_inputs(batch)[1], optimizer=optimizer)
        return olla.simulate(graph)["eager_reserved_bytes"]
    assert eager_bytes(sizes.eager.batch) <= memory < eager_bytes(sizes.eager.batch + 1)
    def olla_bytes(batch):
        graph = capture_training_step(model, *make_inputs(batch)[:1], loss_fn,
                                      make_inputs(batch)[1], optimizer=optimizer,
                                      copy_elimination=True)
        plan = olla.optimize_graph(graph, alignment=512, work_limit=20_000)
        return plan.report["total_bytes"]
    assert olla_bytes(sizes.olla.batch) <= memory < olla_bytes(sizes.olla.batch + 1)
    assert f"batch {sizes.olla.batch}" in sizes.text()
    # With recomputation: a plan at the batch found fits within the overhead; one above
    # does not.
    def recompute_fits(batch):
        graph = capture_training_step(model, *make_inputs(batch)[:1], loss_fn,
                                      make_inputs(batch)[1], optimizer=optimizer,
                                      copy_elimination=True)
        try:
            plan = olla.optimize_graph(graph, alignment=512, work_limit=20_000,
                                       memory_budget=memory - graph.persistent_bytes())
        except olla.NoPlanError:
            return False
        return plan.report.get("added_compute", 0.0) <= 0.1
    batch = sizes.olla_recompute.batch
    assert recompute_fits(batch) and not recompute_fits(batch + 1)


@pytest.mark.parametrize("arguments,message", [
    (dict(memory=0), "memory: expected a positive number of bytes"),
    (dict(memory=1 << 20, max_batch=0), "max_batch: expected a positive integer"),
    (dict(memory=1 << 20, min_batch=8, max_batch=4), "min_batch: 8 is above max_batch 4"),
    (dict(memory=1 << 20, recompute_overhead=-1), "recompute_overhead: expected a fraction"),
])
def test_bad_arguments_are_named(arguments, message):
    model = SmallConvNet()
    with pytest.raises(ValueError, match=message):
        olla_torch.max_batch_size(model, make_inputs, torch.nn.functional.cross_entropy,
                                  "sgd", **arguments)
    with pytest.raises(ValueError, match="make_inputs: expected a callable"):
        olla_torch.max_batch_size(model, None, torch.nn.functional.cross_entropy, "sgd",
                                  1 << 20)


@pytest.mark.parametrize("text,value", [
    ("16GiB", 16 << 30), ("16G", 16 << 30), ("16GB", 16 * 10**9), ("512MiB", 512 << 20),
    ("1000000", 1000000), ("1.5 GiB", 3 << 29)])
def test_memory_sizes_parse(text, value):
    assert parse_bytes(text) == value


@pytest.mark.parametrize("text", ["", "-1G", "16XB", "nan", "1e30"])
def test_bad_memory_sizes_are_refused(text):
    with pytest.raises(ValueError, match="memory: expected bytes such as 16GiB"):
        parse_bytes(text)


def run(*arguments):
    return subprocess.run([sys.executable, "-m", "olla.torch.max_batch", *arguments],
                          capture_output=True, text=True, cwd=ROOT,
                          env={"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin"})


def test_the_command_line_gives_both_batches():
    # 256 MiB and small plans: every batch tried is captured and planned (1 GiB at work
    # 20,000 took 47 s of the suite; this, about 20).
    result = run("squeezenet1_1", "--memory", "256MiB", "--json", "--work-limit", "4000")
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    memory = 256 << 20
    assert 1 <= answer["eager"]["batch"] <= answer["olla"]["batch"]
    assert answer["olla"]["bytes"] <= memory < answer["olla"]["next_bytes"]
    assert answer["olla"]["batch"] <= answer["olla_recompute"]["batch"]
    assert answer["olla_recompute"]["bytes"] <= memory < answer["olla_recompute"]["next_bytes"]


@pytest.mark.parametrize("arguments,message", [
    (["no_such_net", "--memory", "1G"], "unknown model 'no_such_net'"),
    (["resnet18", "--memory", "lots"], "memory: expected bytes such as 16GiB"),
    (["resnet18"], "the following arguments are required: --memory"),
])
def test_command_line_errors_are_one_line(arguments, message, capsys):
    # In process: each as a process importing torch took 4.5 s of the suite.
    try:
        code = max_batch.main(arguments)
    except SystemExit as exit:
        code = exit.code
    assert code == 1
    stderr = capsys.readouterr().err
    assert stderr.count("\n") == 1 and message in stderr, stderr
