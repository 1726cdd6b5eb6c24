"""Where a step runs: the device of its model and inputs (the CPU here, a CUDA device
on a GPU: docs/gpu.md). What olla cannot run on a device is refused before any
capture, naming the tensor or the reason; the CUDA path itself runs in the device check
(bench/gpu_check.py), which needs a GPU."""

import json
import pathlib
import subprocess
import sys

import pytest
import torch
import torch.distributed as dist
from torch import nn

import olla.torch as olla_torch
from olla.torch import _arena
from olla.torch import arena as arenas

cross_entropy = nn.functional.cross_entropy


def model_and_batch():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    return model, torch.randn(3, 4), torch.randint(0, 2, (3,))


def optimize(model, x, y):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    return olla_torch.optimize(model, [x], cross_entropy, optimizer, targets=[y],
                               work_limit=1000)


def test_a_step_on_the_cpu_keeps_the_cpu_allocators_alignment():
    model, x, y = model_and_batch()
    step = optimize(model, x, y)
    assert step.device == torch.device("cpu")
    assert step.report["alignment"] == 64
    assert arenas.alignment("cuda") == 512
    step(x, targets=[y])
    assert step.last_stats.fell_through == 0


def test_a_tensor_on_another_device_is_named():
    model, x, y = model_and_batch()
    with pytest.raises(ValueError, match=r"inputs\[0\]: on meta, but model: parameter "
                                         r"'0.weight' is on cpu; a step runs on one device"):
        optimize(model, x.to("meta"), y)
    step = optimize(model, x, y)
    with pytest.raises(ValueError, match=r"inputs\[0\]: on meta; the step was captured "
                                         r"on cpu"):
        step(x.to("meta"), targets=[y])


def test_a_device_olla_cannot_run_on_is_refused_before_the_capture():
    model, x, y = model_and_batch()
    with pytest.raises(ValueError, match="device: the step's tensors are on meta; olla "
                                         "runs steps on the CPU and on CUDA devices"):
        optimize(model.to("meta"), x.to("meta"), y.to("meta"))


def test_cuda_without_a_device_or_without_olla_built_for_it_is_refused(monkeypatch):
    cuda = torch.device("cuda", 0)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    if _arena.cuda_built:
        with pytest.raises(ValueError, match="PyTorch sees no CUDA device"):
            arenas.check_device(cuda)
    monkeypatch.setattr(_arena, "cuda_built", False)
    with pytest.raises(ValueError, match="olla was built against a CPU-only PyTorch"):
        arenas.check_device(cuda)


def test_a_data_parallel_model_is_refused(tmp_path):
    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'store'}", rank=0,
                            world_size=1)
    try:
        model, x, y = model_and_batch()
        wrapped = nn.parallel.DistributedDataParallel(model)
        with pytest.raises(ValueError, match="model: a DistributedDataParallel; olla plans "
                                             "one process's step .* pass the module inside"):
            optimize(wrapped, x, y)
    finally:
        dist.destroy_process_group()


def test_the_cuda_allocator_is_built_against_a_cuda_torch():
    # The package index's torch is a CUDA build, and olla's CUDA allocator is built
    # against it (cmake/OllaTorch.cmake): a build that silently left it out would only
    # show on a GPU.
    assert _arena.cuda_built == (torch.version.cuda is not None)
    assert not _arena.cuda_installed()


def test_the_device_check_runs_on_the_cpu(tmp_path):
    # bench/gpu_check.py runs on a GPU machine only now and then; its quick run on the
    # CPU keeps it from rotting between those runs: every case trained bitwise equal,
    # nothing fell through olla's arena, and the table written.
    root = pathlib.Path(__file__).resolve().parents[3]
    result = subprocess.run(
        [sys.executable, str(root / "bench" / "gpu_check.py"), "--device", "cpu",
         "--quick", "--out", str(tmp_path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    rows = json.loads((tmp_path / "gpu_check.json").read_text())["rows"]
    assert [r["case"] for r in rows] == ["decoder_tiny b2, AdamW",
                                         "decoder_tiny b2, bfloat16 autocast, AdamW fused"]
    for row in rows:
        assert row["bitwise_equal"] and row["target_allocated"]
        assert row["olla"]["fell_through"] == 0 and row["olla"]["blocked"] == 0
    assert "| decoder_tiny b2, AdamW |" in (tmp_path / "gpu_check.md").read_text()


def test_cuda_graph_replay_is_refused_off_cuda():
    model, x, y = model_and_batch()
    with pytest.raises(ValueError, match="cuda_graph=True: the model is on cpu; CUDA "
                                         "graphs replay steps on a CUDA device"):
        olla_torch.optimize(model, [x], cross_entropy,
                            torch.optim.SGD(model.parameters(), lr=0.1), targets=[y],
                            cuda_graph=True)
    with pytest.raises(ValueError, match="cuda_graph: expected True or False"):
        olla_torch.optimize(model, [x], cross_entropy,
                            torch.optim.SGD(model.parameters(), lr=0.1), targets=[y],
                            cuda_graph="yes")
