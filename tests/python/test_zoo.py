"""The committed model zoo (models/): every graph loads in `olla simulate`, and the
table in models/README.md states what olla reports for it."""

import re

import pytest

from conftest import ROOT

MODELS = ROOT / "models"
GRAPHS = sorted(MODELS.glob("*.json.gz"))


def readme_rows():
    rows = {}
    for line in (MODELS / "README.md").read_text().splitlines():
        match = re.match(r"\| (\S+\.json\.gz) \| (\d+) \| (\d+) \| ([\d,.]+) \| ([\d,.]+) \|", line)
        if match:
            rows[match.group(1)] = match.groups()[1:]
    return rows


def test_the_zoo_has_every_model_in_both_modes_and_batches():
    names = {path.name for path in GRAPHS}
    assert len(names) == 19 * 4
    assert "inception_v3.train.b2.json.gz" in names and "gpt2_small.train.b32.json.gz" in names
    assert sum(path.stat().st_size for path in MODELS.iterdir()) < 40 * 2**20
    assert set(readme_rows()) == names


@pytest.mark.parametrize("path", GRAPHS, ids=lambda p: p.name)
def test_each_graph_loads_and_matches_the_readme(path, simulate):
    report = simulate(path)
    ops, buffers, persistent_mib, peak_mib = readme_rows()[path.name]
    assert report["ops"] == int(ops) and report["buffers"] == int(buffers)
    assert f"{report['persistent_bytes'] / 2**20:,.1f}" == persistent_mib
    assert f"{report['eager_peak_live_bytes'] / 2**20:,.1f}" == peak_mib
    assert report["lower_bound_bytes"] <= report["eager_peak_live_bytes"]
