"""`python -m olla` and the checkout's `olla` command run olla's command line."""

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_python_dash_m_olla_is_the_command_line():
    result = subprocess.run([sys.executable, "-m", "olla", "--help"], capture_output=True,
                            text=True, cwd="/")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("olla: memory planning")
    assert "Usage: olla [OPTIONS] SUBCOMMAND" in result.stdout


def test_its_exit_codes_and_errors_are_the_programs():
    result = subprocess.run([sys.executable, "-m", "olla", "simulate", "/no/such/graph"],
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert "/no/such/graph" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_the_checkouts_olla_command():
    olla = pathlib.Path(sys.executable).parent / "olla"
    if not olla.exists():
        pytest.skip("run by a Python outside the checkout's .venv")
    result = subprocess.run([str(olla), "--version"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()
