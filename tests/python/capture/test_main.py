"""`python -m olla.capture`: the command line, its errors and exit codes, on zoo models
and on torchvision models outside the zoo; olla loads what it writes."""

import gzip
import json
import subprocess
import sys

import pytest

from conftest import ROOT

PYTHON = sys.executable


def capture(*arguments):
    return subprocess.run([PYTHON, "-m", "olla.capture", *map(str, arguments)],
                          capture_output=True, text=True, cwd=ROOT,
                          env={"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin"})


def run_main(arguments):
    """The command's main in this process, as `python -m olla.capture` calls it (a
    process per case costs a torch import each); its exit code."""
    from olla.capture.__main__ import main
    try:
        return main([str(a) for a in arguments])
    except SystemExit as exit:
        return exit.code


def test_list_names_the_zoo_and_torchvision(capsys):
    assert run_main(["--list"]) in (0, None)
    stdout = capsys.readouterr().out
    assert "gpt2_small" in stdout and "resnet50" in stdout
    assert "shufflenet_v2_x0_5" in stdout


@pytest.mark.parametrize("arguments,message", [
    (["no_such_net", "-o", "g.json"], "unknown model 'no_such_net'"),
    (["resnet18"], "MODEL and -o FILE are required"),
    (["resnet18", "--batch", "0", "-o", "g.json"], "--batch must be at least 1"),
    (["resnet18", "-o", "g.txt"], "must end in .json or .json.gz"),
    (["resnet18", "--optimizer", "lamb", "-o", "g.json"], "invalid choice: 'lamb'"),
    (["inception_v3", "--batch", "1", "-o", "g.json"], "needs --batch 2 or more"),
    (["alexnet", "--mode", "eval", "--optimizer", "adam", "-o", "g.json"],
     "--optimizer applies to train mode only"),
    (["alexnet", "--mode", "eval", "--self-check", "-o", "g.json"],
     "--self-check applies to train mode only"),
    (["alexnet", "--batch", "100000000000000", "-o", "g.json"],
     "cannot make example inputs for --batch 100000000000000: Storage size calculation "
     "overflowed"),
])
def test_bad_usage_is_one_line_and_exit_code_1(arguments, message, tmp_path, capsys):
    # In this process (40 s of the suite as processes); the module's entry point is run
    # as a process by the tests below.
    code = run_main([str(tmp_path / a) if a.startswith("g.") else a for a in arguments])
    assert code == 1
    stderr = capsys.readouterr().err
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], stderr


def test_unwritable_output_is_one_line(tmp_path, capsys):
    assert run_main(["squeezenet1_1", "-o", tmp_path / "missing" / "g.json"]) == 1
    stderr = capsys.readouterr().err
    assert stderr.count("\n") == 1 and "No such file" in stderr


def test_a_model_outside_the_zoo_with_adam_loads_in_olla(tmp_path, simulate):
    path = tmp_path / "g.json.gz"
    result = capture("mobilenet_v3_small", "--batch", "2", "--mode", "train",
                     "--optimizer", "adam", "-o", path)
    assert result.returncode == 0, result.stderr
    graph = json.loads(gzip.decompress(path.read_bytes()))
    assert graph["name"] == "mobilenet_v3_small.train.b2"
    assert graph["metadata"]["optimizer"] == "adam"
    kinds = {b["kind"] for b in graph["buffers"]}
    assert {"parameter", "optimizer_state", "input", "activation", "gradient"} <= kinds
    report = simulate(path)
    assert report["eager_peak_live_bytes"] > 0
    assert report["ops"] == len(graph["ops"]) and report["buffers"] == len(graph["buffers"])


def test_capture_is_deterministic(tmp_path):
    outputs = []
    for _ in range(2):
        if (tmp_path / "g.json.gz").exists():
            outputs.append((tmp_path / "g.json.gz").read_bytes())
        assert capture("transformer_small", "--mode", "eval", "-o",
                       tmp_path / "g.json.gz").returncode == 0
    outputs.append((tmp_path / "g.json.gz").read_bytes())
    assert outputs[0] == outputs[1]


def test_copy_elimination_is_a_flag_and_said(tmp_path, simulate):
    sizes = {}
    for flag in ([], ["--copy-elimination"]):
        path = tmp_path / f"g{len(flag)}.json.gz"
        result = capture("mobilenet_v2", "--batch", "2", *flag, "-o", path)
        assert result.returncode == 0, result.stderr
        metadata = json.loads(gzip.decompress(path.read_bytes()))["metadata"]
        assert ("x hardtanh_backward_from_output" in result.stdout) == bool(flag)
        assert ("rewrites" in metadata) == bool(flag)
        sizes[bool(flag)] = simulate(path)["eager_peak_live_bytes"]
    assert sizes[True] < sizes[False]


def test_the_self_check_is_asked_for_and_said(tmp_path):
    result = capture("squeezenet1_1", "--batch", "2", "--optimizer", "adam",
                     "--self-check", "-o", tmp_path / "g.json.gz")
    assert result.returncode == 0, result.stderr
    # The loss, 52 parameters and their 104 Adam moments.
    assert "self-check: 157 tensors equal to eager's" in result.stdout


def test_measured_costs_are_written_for_every_op(tmp_path):
    path = tmp_path / "g.json"
    result = capture("squeezenet1_1", "--batch", "2", "--measure-costs", "-o", path)
    assert result.returncode == 0, result.stderr
    assert "costs measured in" in result.stdout
    ops = json.loads(path.read_text())["ops"]
    assert all(op["cost"] >= 0 for op in ops)
    assert sum(op["cost"] for op in ops if "convolution" in op["type"]) > 0
