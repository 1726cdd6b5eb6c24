"""Shared setup: the olla Python package is imported from python/ of this checkout, and
the olla binary is the one `make` built (or $OLLA_BINARY)."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))


@pytest.fixture(scope="session")
def olla_binary():
    return os.environ.get("OLLA_BINARY", str(ROOT / "build" / "bin" / "olla"))


@pytest.fixture(scope="session")
def simulate(olla_binary):
    """Runs `olla simulate PATH --json` and returns the parsed report."""

    def run(path):
        result = subprocess.run([olla_binary, "simulate", str(path), "--json"],
                                capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    return run
