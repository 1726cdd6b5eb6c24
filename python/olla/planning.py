"""olla's planner in process: olla.optimize_graph and olla.simulate.

Both take a graph as a path to a graph file (.json or .json.gz), a graph captured by
olla.capture, or the graph format's JSON as a dict or a string. Options of
optimize_graph are the option table of `olla optimize` (olla.options() lists them),
as keyword arguments: time_limit=2.0, work_limit=100000, memory_budget=2**30,
alignment=512, schedule_method="joint", ... An unknown option or a bad value raises
ValueError naming it, as does a bad graph; a memory budget no plan meets raises
NoPlanError with olla's reason; an internal error of olla raises RuntimeError. The
solve runs without holding the GIL.
"""

import json
import os
import sys

from . import _olla

# Python runs threads (torch's pools among them), so a CBC solve cannot fork safely:
# it starts this interpreter as a worker instead (solver/isolated_solver.h).
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_olla.set_milp_worker([
    sys.executable, "-c",
    f"import sys; sys.path.insert(0, {_PACKAGE_ROOT!r}); from olla import _olla; "
    f"raise SystemExit(_olla._milp_worker())"])


class NoPlanError(Exception):
    """No plan fits the memory budget: a proven bound refutes it, or none was found
    within the limits. The message is olla's conclusion, as `olla optimize` prints it
    (exit code 2). Not a ValueError: the options and the graph were right."""


class Plan:
    """A checked plan and its report.

    order: op ids (and recomputations' ids) in the order to run them; recompute: the
    plan's recomputations ({"op", "id", "copies", "serves"}, plan format 3; empty when
    it recomputes nothing); offsets: {buffer id: byte offset} for every
    non-persistent buffer; workspace_offsets: {op id: byte offset} for every op with
    workspace; arena_bytes, alignment: the arena. steps: the order as a runtime runs
    it, the library's reading of the plan (plan/expand.h PlanStep), one dict per entry:
    entry (its id in `order`), op (the graph op it runs), recomputation (an index into
    `recompute`, or None), copies ({output buffer: its copy}), reads_copies_of (the
    recomputations whose copies it reads). report: the JSON report of `olla
    optimize` as a dict (eager_reserved_bytes, peak_live_bytes, arena_bytes,
    saving_vs_reserved, stages, ...); text() and markdown() the same report as text.
    """

    def __init__(self, result):
        self._result = result
        self.report = json.loads(result["report_json"])
        plan = json.loads(result["plan_json"])
        self.order = plan["order"]
        self.recompute = plan.get("recompute", [])
        self.offsets = {entry["buffer"]: entry["offset"] for entry in plan["offsets"]}
        self.workspace_offsets = {entry["op"]: entry["offset"]
                                  for entry in plan.get("workspace", [])}
        self.arena_bytes = plan["arena_bytes"]
        self.alignment = plan["alignment"]
        self.provenance = plan["provenance"]
        self.steps = result["steps"]

    def to_json(self):
        """The plan file's text (docs/plan-format.md), as `olla optimize -o` writes it."""
        return self._result["plan_json"]

    def save(self, path):
        with open(path, "w") as out:
            out.write(self.to_json())

    def text(self):
        return self._result["report_text"]

    def markdown(self):
        return self._result["report_markdown"]

    def svg(self):
        """The picture of `olla optimize --svg`: eager PyTorch beside this plan."""
        return self._result["svg"]

    def __repr__(self):
        return (f"Plan({len(self.order)} ops, arena {self.arena_bytes} B, "
                f"{100 * self.report['saving_vs_reserved']:.1f}% below eager reserved)")


def _source(graph):
    """(text or path, whether it is a path)."""
    if isinstance(graph, (str, os.PathLike)) and not str(graph).lstrip().startswith("{"):
        return os.fspath(graph), True
    if isinstance(graph, str):
        return graph, False
    if isinstance(graph, dict):
        return json.dumps(graph), False
    if hasattr(graph, "to_json"):
        return json.dumps(graph.to_json()), False
    raise ValueError(f"graph: expected a path, a captured graph or graph JSON, "
                     f"got {type(graph).__name__}")


def _option_text(name, value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    raise ValueError(f"{name}: expected a number, a string or a bool, "
                     f"got {type(value).__name__}")


def check_options(**options):
    """Raises ValueError naming the first bad option of optimize_graph, as optimize_graph
    would, without a graph: front ends call it before any expensive work."""
    _olla.check_options({name: _option_text(name, value)
                         for name, value in options.items()})


def optimize_graph(graph, **options):
    """Orders, places and checks `graph`: a Plan (see the module's documentation).

    With memory_budget, order and placement come first and recomputation where they
    cannot fit (docs/budget.md; recompute=False forbids it); raises NoPlanError when
    no plan's arena fits (a bound refutes the budget, or none was found within the
    limits)."""
    source, from_file = _source(graph)
    texts = {name: _option_text(name, value) for name, value in options.items()}
    result = _olla.optimize(source, from_file, texts)
    if not result["fits"]:
        raise NoPlanError(result["reason"])
    return Plan(result)


class Tradeoff:
    """Budget mode's memory-compute curve of one graph (`olla tradeoff`; docs/budget.md):
    points, widest budget first, each a dict of budget_bytes, arena_bytes,
    added_compute (a fraction of the step), recomputed_ops, found_at_budget_bytes (the
    budget whose search found the plan; None: without a budget) and plan (a Plan; None
    and arena_bytes None where no plan found fits); recompute_floor_bytes (no plan
    below it) and searched_floor_bytes (none budget mode can make below it); text() the
    table `olla tradeoff` prints."""

    def __init__(self, result):
        self._text = result["text"]
        curve = json.loads(result["json"])
        self.recompute_floor_bytes = curve["recompute_floor_bytes"]
        self.searched_floor_bytes = curve["searched_floor_bytes"]
        self.recompute_floor_complete = curve["recompute_floor_complete"]
        self.cost_source = curve["cost_source"]
        plans = [Plan(search) if "plan_json" in search else None
                 for search in result["searches"]]
        self.points = []
        for point in curve["points"]:
            search = point.pop("search", None)
            point["plan"] = None if search is None else plans[search]
            self.points.append(point)

    def text(self):
        return self._text


def _tradeoff_arguments(points, options):
    if isinstance(points, bool) or not isinstance(points, int):
        raise ValueError(f"points: expected an integer, got {points!r}")
    return {name: _option_text(name, value) for name, value in options.items()}, points


def check_tradeoff_options(points, **options):
    """Raises ValueError naming the first bad argument of tradeoff_graph, as it would,
    without a graph."""
    _olla.check_tradeoff(*_tradeoff_arguments(points, options))


def tradeoff_graph(graph, points=10, **options):
    """The memory-compute curve of `graph` (a Tradeoff): `points` budgets from the arena
    without recomputation down to the smallest arena recomputation reaches, the
    cheapest plan found at each; the options of optimize_graph but memory_budget, the
    time limit covering the whole curve."""
    source, from_file = _source(graph)
    return Tradeoff(_olla.tradeoff(source, from_file, *_tradeoff_arguments(points, options)))


def simulate(graph):
    """The eager baselines and lower bounds of `olla simulate --json`, as a dict."""
    source, from_file = _source(graph)
    return json.loads(_olla.simulate(source, from_file))


def op_costs(graph):
    """Each op's cost as budget mode weighs it (docs/budget.md, "What it costs"), a list
    in the graph's op order: its measured seconds as nanoseconds where the graph has
    costs, else the estimate from shapes (floating-point operations, or 16 per byte
    moved); what reports sum as added compute."""
    source, from_file = _source(graph)
    return _olla.op_costs(source, from_file)


def options():
    """The options of optimize_graph: name, flag, help, default and choices of each."""
    return _olla.option_table()
