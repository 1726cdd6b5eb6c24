"""The documentation shows real output: every `$ olla ...` (or `$ .venv/bin/python ...`)
line in a ```console block of README.md and docs/*.md is run from the repository root,
and what it prints (stdout then stderr) must equal the lines that follow it in the
block, measured times ("0.002 s") aside. Commands that search (optimize, place,
schedule) run with a generous --work-limit added, so they stop on work, as every test
must, where the documented command would stop on its default time limit: on these
small inputs both reach the same result long before either limit."""

import os
import pathlib
import re
import shlex
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
OLLA = os.environ.get("OLLA_BINARY", str(ROOT / "build" / "bin" / "olla"))


def console_examples():
    examples = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md"))]:
        for block in re.findall(r"```console\n(.*?)```", doc.read_text(), re.S):
            command, expected = None, []
            for line in block.splitlines() + ["$ end"]:
                if line.startswith("$ "):
                    if command is not None:
                        examples.append(pytest.param(command, expected, id=f"{doc.name}: {command}"))
                    command, expected = line[2:], []
                elif command is not None:
                    expected.append(line)
    return examples


EXAMPLES = console_examples()
SEARCHING = ("optimize", "place", "schedule")


def test_the_docs_show_examples():
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize("command,expected", EXAMPLES)
def test_example_output_is_real(command, expected):
    words = shlex.split(command)
    if words[0] == ".venv/bin/python":  # the capture: this interpreter, this checkout
        words[0] = sys.executable
        environment = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    else:
        assert words[0] == "olla", command
        words[0] = OLLA
        environment = None
        if words[1] in SEARCHING and "--work-limit" not in words and "--help" not in words:
            words += ["--work-limit", "100000000"]
    result = subprocess.run(words, cwd=ROOT, capture_output=True, text=True, timeout=120,
                            env=environment)
    printed = (result.stdout + result.stderr).rstrip("\n").splitlines()
    assert [without_times(line) for line in printed] == [without_times(line) for line in expected]


def without_times(line):
    return re.sub(r"\d+\.\d+ s\b", "<time>", line)
