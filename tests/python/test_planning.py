"""olla.optimize_graph and olla.simulate: the library in process, with the option table
of `olla optimize` as keyword arguments and olla's one-line errors as ValueError."""

import json
import pathlib
import subprocess

import pytest

import olla
from olla.capture import capture_training_step

ROOT = pathlib.Path(__file__).resolve().parents[2]
RESNET18 = ROOT / "models" / "resnet18.train.b1.json.gz"
FIGURE3 = ROOT / "examples" / "figure3.json"


def test_the_plan_is_the_cli_plan(olla_binary, tmp_path):
    plan = olla.optimize_graph(RESNET18, work_limit=100000)
    out = tmp_path / "plan.json"
    subprocess.run([olla_binary, "optimize", str(RESNET18), "--work-limit", "100000", "-o",
                    str(out)], check=True, capture_output=True)
    assert plan.to_json() == out.read_text()
    assert plan.report["optimal_order"] and plan.report["optimal_placement"]
    assert plan.report["options"]["work_limit"] == "100000"
    assert len(plan.order) == 290 and plan.alignment == 512
    assert plan.arena_bytes == plan.report["arena_bytes"]
    assert plan.text().startswith("graph             resnet18.train.b1")
    assert plan.svg().startswith("<?xml")


def test_the_checker_accepts_a_saved_plan(olla_binary, tmp_path):
    plan = olla.optimize_graph(FIGURE3, work_limit=1000, alignment=1024)
    plan.save(tmp_path / "plan.json")
    check = subprocess.run([olla_binary, "check", "--json", str(FIGURE3),
                            str(tmp_path / "plan.json")], capture_output=True, text=True)
    assert json.loads(check.stdout)["valid"]
    assert plan.alignment == 1024


def test_graphs_come_as_paths_dicts_text_or_captures():
    import torch
    from torch import nn
    text = FIGURE3.read_text()
    for graph in (FIGURE3, str(FIGURE3), text, json.loads(text)):
        assert olla.optimize_graph(graph, work_limit=1000).arena_bytes == 47185920
    torch.manual_seed(0)
    captured = capture_training_step(nn.Linear(8, 4), (torch.randn(2, 8),),
                                     torch.nn.functional.mse_loss,
                                     targets=(torch.randn(2, 4),))
    assert olla.optimize_graph(captured, work_limit=1000).report["ops"] == len(captured.ops)
    assert olla.simulate(FIGURE3)["eager_peak_live_bytes"] == 62914560


@pytest.mark.parametrize("options,message", [
    ({"frobnicate": 1}, "frobnicate: unknown option"),
    ({"time_limit": 0}, "time_limit: must be a positive number of seconds"),
    ({"time_limit": float("inf")}, "time_limit: must be a positive number of seconds"),
    ({"alignment": 0}, "alignment: must be an integer from 1"),
    ({"placement_method": "magic"}, "placement_method: must be one of auto, best-fit"),
    ({"updates_asap": "yes"}, "updates_asap: must be true or false"),
    ({"threads": [1]}, "threads: expected a number, a string or a bool"),
])
def test_bad_options_raise_value_error_naming_them(options, message):
    with pytest.raises(ValueError, match="^" + message):
        olla.optimize_graph(FIGURE3, work_limit=1000, **options)


def test_bad_graphs_raise_value_error_and_a_refuted_budget_no_plan_error():
    with pytest.raises(ValueError, match="no such file"):
        olla.optimize_graph(ROOT / "no-such-graph.json", work_limit=1000)
    with pytest.raises(ValueError, match="^top level: missing required field 'buffers'"):
        bad = '{"format": "olla.graph", "version": 1, "ops": [{}]}'
        olla.optimize_graph(bad, work_limit=1000)
    with pytest.raises(ValueError, match="^graph: expected a path"):
        olla.optimize_graph(42, work_limit=1000)
    # Not a bad option: olla's conclusion, in the CLI's words (exit code 2 there).
    with pytest.raises(olla.NoPlanError, match="^no plan fits in 1 bytes: ") as refuted:
        olla.optimize_graph(FIGURE3, memory_budget=1, work_limit=1000)
    assert not isinstance(refuted.value, ValueError)
    fits = olla.optimize_graph(FIGURE3, memory_budget=47185920, work_limit=1000)
    assert fits.arena_bytes == 47185920


def test_a_budget_only_recomputation_meets_gives_a_plan_that_recomputes():
    graph = ROOT / "models" / "gpt2_small.train.b1.json.gz"
    budget = olla.simulate(graph)["lower_bound_bytes"] // 5 * 3
    # Each of the search's measurements expands the 2,462-op graph: a small work limit.
    plan = olla.optimize_graph(graph, memory_budget=budget, work_limit=5_000,
                               time_limit=3600)  # wall clock: far away, work stops it
    assert plan.arena_bytes <= budget
    assert plan.recompute and {"op", "id", "copies", "serves"} <= set(plan.recompute[0])
    assert {r["id"] for r in plan.recompute} <= set(plan.order)
    assert 0 < plan.report["added_compute"] < 0.5
    assert plan.report["recompute_runs"] == len(plan.recompute)
    assert plan.report["recomputed_ops"] == len({r["op"] for r in plan.recompute})
    # The runtime's reading of it: every entry, each recomputation once, as its op, and
    # every copy read by a step the plan says it serves (ops and other runs alike).
    assert [s["entry"] for s in plan.steps] == plan.order
    runs = [s for s in plan.steps if s["recomputation"] is not None]
    assert sorted(s["recomputation"] for s in runs) == list(range(len(plan.recompute)))
    for s in runs:
        r = plan.recompute[s["recomputation"]]
        assert s["entry"] == r["id"] and s["op"] == r["op"]
        assert sorted(s["copies"].values()) == sorted(r["copies"])
    for s in plan.steps:
        for i in s["reads_copies_of"]:
            assert s["entry"] in plan.recompute[i]["serves"]
    with pytest.raises(olla.NoPlanError, match=r"^no plan fits in \d+ bytes: \d+ bytes are "
                                              "live at .* in every order"):
        olla.optimize_graph(graph, work_limit=200_000, memory_budget=budget, recompute=False,
                            time_limit=3600)  # wall clock: far away, work stops it


def test_a_budget_below_the_orders_floor_names_it():
    # The least peak of any plan on the order searched (docs/budget.md, the order's
    # floor), given from the first measurement on.
    graph = ROOT / "models" / "mnasnet0_5.train.b1.json.gz"
    with pytest.raises(olla.NoPlanError, match=r"^no plan within 12480000 bytes found: .*"
                       r"on the order searched, none needs less than 12484964 bytes, live at op 318 "
                       r"'layers.14/convolution_backward'\)$"):
        olla.optimize_graph(graph, memory_budget=12480000, alignment=1, work_limit=1)


def test_the_option_table_is_the_clis():
    names = [option["name"] for option in olla.options()]
    assert names[:2] == ["time_limit", "work_limit"]
    assert "joint" in next(o for o in olla.options() if o["name"] == "schedule_method")[
        "choices"]


def staircase_graph():
    """A chain of five ops whose buffers have examples/placement/staircase.csv's
    lifetimes: every greedy placement needs 64 bytes, the location ILP finds 60."""
    lifetimes = {"a": (3, 6, 16), "b": (2, 3, 32), "c": (4, 6, 20), "d": (1, 4, 16),
                 "e": (4, 5, 24)}
    buffers = [{"id": i, "name": name, "size": size}
               for i, (name, (_, _, size)) in enumerate(lifetimes.items())]
    ops = []
    for step in range(1, 6):
        allocates = [i for i, (start, _, _) in enumerate(lifetimes.values()) if start == step]
        uses = [i for i, (start, end, _) in enumerate(lifetimes.values())
                if end - 1 == step and start != step]
        ops.append({"id": step, "name": f"op{step}", "allocates": allocates, "uses": uses})
    return {"format": "olla.graph", "version": 1, "name": "staircase", "buffers": buffers,
            "ops": ops, "precedence": [[k, k + 1] for k in range(1, 5)]}


def test_ilp_solves_from_a_threaded_process_run_in_a_worker():
    """Python runs threads (torch's pools, and one of ours here), where forking a CBC
    solve is unsafe: the solve runs in a worker process of this interpreter, and finds
    what the greedy placements cannot."""
    import threading
    import torch

    torch.set_num_threads(2)  # Its thread pools are part of the point.

    greedy = olla.optimize_graph(staircase_graph(), work_limit=100_000,
                                 alignment=4, placement_method="best-fit")
    assert greedy.arena_bytes == 64
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait)
    worker.start()
    try:
        assert threading.active_count() > 1
        plan = olla.optimize_graph(staircase_graph(), work_limit=100_000,
                                   alignment=4, placement_method="ilp")
    finally:
        stop.set()
        worker.join()
    assert plan.arena_bytes == 60
    assert plan.report["placement_method"] == "ilp"


def test_op_costs_are_the_measured_ones_else_the_estimate():
    graph = json.loads(FIGURE3.read_text())
    estimated = olla.op_costs(graph)
    assert len(estimated) == len(graph["ops"]) and all(c > 0 for c in estimated)
    for i, op in enumerate(graph["ops"]):
        op["cost"] = 1e-6 * (i + 1)  # seconds: one unit per nanosecond
    assert olla.op_costs(graph) == [1000 * (i + 1) for i in range(len(graph["ops"]))]
    with pytest.raises(ValueError, match="graph"):
        olla.op_costs(42)
