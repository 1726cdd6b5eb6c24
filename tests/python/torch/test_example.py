"""examples/train_with_olla.py runs end to end and prints a measured saving."""

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]


def test_train_with_olla_prints_measured_memory():
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "train_with_olla.py"), "--batch", "4",
         "--image", "32", "--steps", "2", "--work-limit", "20000", "--resident"],
        capture_output=True, text=True, timeout=600,
        env={"PYTHONPATH": str(ROOT / "python")})
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert re.search(r"step 1: loss \d+\.\d+", out)
    eager = float(re.search(r"eager PyTorch step: +([\d.]+) MiB", out).group(1))
    olla = float(re.search(r"olla step: +([\d.]+) MiB at peak \(arena [\d.]+ MiB \+ "
                           r"0\.0 MiB outside the plan\)", out).group(1))
    assert 0 < olla < eager
    assert re.search(r"eager PyTorch [\d.]+ MiB, olla [\d.]+ MiB", out)
