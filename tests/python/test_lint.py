"""The Python code (the package, its tests and scripts) passes pyflakes: no unused
imports or variables, no undefined names."""

import subprocess
import sys

from conftest import ROOT

SOURCES = ["python", "tests/python", "scripts/capture-zoo", "scripts/layers", "scripts/walk-option",
           "scripts/check-no-wall-clock", "bench/capture_peaks.py", "bench/compare_torch.py",
           "bench/random_placement.py", "bench/schedule.py", "bench/zoo.py", "bench/scale.py",
           "examples"]


def test_pyflakes_finds_nothing():
    result = subprocess.run([sys.executable, "-m", "pyflakes", *SOURCES], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
