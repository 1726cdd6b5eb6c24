"""Budget mode on graphs nobody on the team wrote: Checkmate's seven Keras training graphs
(MLSys 2020), with each op's profiled run time, read in place from
../shared/data/moccasin/data/*_train_nx.json (Moccasin's copy, ICML 2023).

    .venv/bin/python bench/checkmate.py [--olla build/bin/olla] [--time-limit 30]

Each node of such a graph is one op that allocates one output of `cost_ram` bytes and
reads its predecessors' outputs; `cost_cpu` is its profiled cost, in a unit that
differs between the graphs (hundreds for VGG16's convolutions, 10^12 for fcn_8_vgg's):
only ratios matter, so each graph's costs are scaled to a step of one second. The converted graph gives every op
that cost, so budget mode minimises profiled compute (docs/budget.md, "Measured
costs"). For each graph, at budgets of 90 % down to 45 % of its order's peak without
recomputation, `olla optimize --memory-budget` gives: fits or not, the compute it adds
(a share of the step's profiled time) and the recompute floor, the proven least arena
of any plan. Writes bench/results/checkmate.md.

Beside each plan, the bound on the compute any plan on the order adds (the covering ILP
and the stage model of docs/budget.md) and the gap to it. Where the gap passes half a
point of the step (the issue's tolerance), the same budget is run again with
--prove-limit seconds (default 600): a tenth goes to the bound, as in every run, and
the search stops once its plan meets a proven bound; that run's bound replaces the
first's, marked. Then, per graph, the smallest budget budget mode
fits (a bisection) against the recompute floor of every plan, the floor of the plans
budget mode searches (which never make the step's outputs again) and the floor of the
plans on the order it searches.
"""

import argparse
import json
import math
import pathlib
import subprocess
import tempfile
import time

from machine import machine

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "moccasin" / "data"
BUDGETS = [0.90, 0.80, 0.70, 0.60, 0.50, 0.45]
PROOF_GAP = 0.005  # Of the step: a gap above it is run again, longer.


def olla_graph(path):
    """The graph format of one Checkmate graph (networkx node-link JSON)."""
    checkmate = json.loads(path.read_text())
    nodes = sorted(checkmate["nodes"], key=lambda n: n["id"])
    readers = {n["id"]: [] for n in nodes}
    for link in checkmate["links"]:
        readers[link["target"]].append(link["source"])
    last = max(n["id"] for n in nodes)
    step = sum(n["cost_cpu"] for n in nodes) or 1
    buffers = [{"id": n["id"], "name": n["name"], "size": n["cost_ram"],
                **({"output": True} if n["id"] == last else {})} for n in nodes]
    ops = [{"id": n["id"], "name": n["name"],
            "phase": "backward" if n["backward"] else "forward",
            "allocates": [n["id"]], "uses": sorted(readers[n["id"]]),
            "cost": n["cost_cpu"] / step} for n in nodes]
    return {"format": "olla.graph", "version": 1, "name": path.name.split(" (")[0],
            "buffers": buffers, "ops": ops, "precedence": []}


def olla(binary, *arguments):
    result = subprocess.run([binary, *map(str, arguments), "--json"],
                            capture_output=True, text=True)
    if result.returncode not in (0, 2):
        raise SystemExit(f"olla {' '.join(map(str, arguments))}: {result.stderr.strip()}")
    return json.loads(result.stdout)


def rows_of(binary, path, time_limit):
    peak = olla(binary, "optimize", path, "--align", "1",
                "--time-limit", time_limit)["peak_live_bytes"]
    rows = []
    for share in BUDGETS:
        report = olla(binary, "optimize", path, "--align", "1", "--time-limit",
                      time_limit, "--memory-budget", int(peak * share))
        rows.append((share, report))
    return peak, rows


def smallest_fit(binary, path, low, high, time_limit):
    """The smallest budget in (low, high] (bytes) budget mode fits, by bisection to 0.5 %
    of `high`: under `low`, a floor, it fits nothing."""
    while high - low > high // 200:
        middle = (low + high) // 2
        report = olla(binary, "optimize", path, "--align", "1", "--time-limit",
                      time_limit, "--memory-budget", middle)
        if report.get("fits"):
            high = report["arena_bytes"]
        else:
            low = middle
    return high


def ratio(floor, arena):
    """floor / arena rounded down to three places: 0.950 only at 95 % or more."""
    return f"{math.floor(1000 * floor / arena) / 1000:.3f}"


def percent(value, peak):
    return "-" if value is None else f"{100 * value / peak:.1f} %"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--olla", default=str(ROOT / "build" / "bin" / "olla"))
    parser.add_argument("--time-limit", default="30")
    parser.add_argument("--prove-limit", default="600")
    arguments = parser.parse_args()
    lines = [
        "# Budget mode on Checkmate's training graphs, with their profiled costs", "",
        f"`bench/checkmate.py` on {machine()}; `olla optimize --align 1 --memory-budget B "
        f"--time-limit {arguments.time_limit}`. Budgets are shares of the graph's peak "
        "without recomputation (olla's order; on these graphs the eager order is already "
        "at the bound). Compute added: the recomputed ops' profiled time over the step's; "
        "runs: the ops run again and, where an op runs once for each group of readers, "
        "the runs. Bound: the least compute any plan on the order adds "
        "(docs/budget.md: the covering ILP and the stage model; * from a longer run, "
        "below); gap: compute added less the bound, in points "
        "of the step (0.00: the plan is optimal on the order, to rounding). "
        "Floor: the recompute floor, below which no plan exists; searched floor: the "
        "floor of the plans budget mode searches, which never make the step's outputs "
        "again (docs/budget.md; a budget under it is refuted at once).", "",
        "| graph | ops | peak | budget | fits | arena | compute added | bound | gap | "
        "runs | floor | searched floor |",
        "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    proofs = ["", "## Bounds proven with more time", "",
              "Where the gap above passed half a point, `olla optimize --align 1 "
              f"--memory-budget B --time-limit {arguments.prove_limit}` "
              "(a tenth of it for the bound; the search stops once its plan meets a "
              "proven bound). Its bound is the one marked * above where it is higher; "
              "optimum: CBC proved the bound the optimum of the model that gave it (the "
              "covering ILP's or the stage model's; equal to the compute added, the "
              "plan is optimal on the order).", "",
              "| graph | budget | seconds | compute added | bound | optimum |",
              "|---|---:|---:|---:|---:|---|"]
    proof_rows = []
    reach = ["", "## How low each graph goes", "",
             "The smallest budget budget mode fits (bisection to 0.5 % of the peak, "
             f"`--time-limit {arguments.time_limit}` each) against the recompute floor of "
             "every plan (raised by what later readers need), the floor of the plans "
             "budget mode searches, and the order's floor: that of the plans on the order "
             "budget mode searches (docs/budget.md). Ratios rounded down.",
             "", "| graph | floor | searched floor | order's floor | smallest fitted arena "
             "| floor / arena | order's floor / arena |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    with tempfile.TemporaryDirectory() as directory:
        for source in sorted(DATA.glob("*_train_nx.json")):
            graph = olla_graph(source)
            path = pathlib.Path(directory) / f"{graph['name']}.json"
            path.write_text(json.dumps(graph))
            peak, rows = rows_of(arguments.olla, path, arguments.time_limit)
            floor = searched = on_order = None
            for share, report in rows:
                floor = report.get("recompute_floor_bytes", floor)
                searched = report.get("searched_floor_bytes", searched)
                on_order = report.get("order_floor_bytes", on_order)
                added = report.get("added_compute", 0)
                bound = report.get("added_compute_lower_bound")
                mark = ""
                if report.get("fits") and bound is not None and added - bound > PROOF_GAP:
                    started = time.monotonic()
                    proof = olla(arguments.olla, "optimize", path, "--align", "1",
                                 "--time-limit", arguments.prove_limit, "--memory-budget",
                                 int(peak * share))
                    seconds = time.monotonic() - started
                    proven = proof.get("added_compute_lower_bound")
                    proof_rows.append(
                        f"| {graph['name']} | {100 * share:.0f} % | {seconds:.0f} | "
                        f"{100 * proof.get('added_compute', 0):.2f} % | "
                        f"{'-' if proven is None else f'{100 * proven:.2f} %'} | "
                        f"{'yes' if proof.get('added_compute_bound_optimal') else 'no'} |")
                    print(proof_rows[-1], flush=True)
                    if proven is not None and proven > bound:
                        bound, mark = proven, "*"
                gap = "-" if bound is None else f"{100 * (added - bound):.2f}"
                runs = report.get("recomputed_ops", 0)
                if report.get("recompute_runs", runs) != runs:
                    runs = f"{runs} ({report['recompute_runs']})"
                lines.append(
                    f"| {graph['name']} | {len(graph['ops'])} | {peak / 2**30:.2f} GiB | "
                    f"{100 * share:.0f} % | "
                    f"{'yes' if report['fits'] else report['conclusion']} | "
                    f"{percent(report.get('arena_bytes'), peak)} | "
                    f"{100 * added:.2f} % | "
                    f"{'-' if bound is None else f'{100 * bound:.2f} %{mark}'} | {gap} | "
                    f"{runs} | {percent(report.get('recompute_floor_bytes'), peak)} | "
                    f"{percent(report.get('searched_floor_bytes'), peak)} |")
                print(lines[-1], flush=True)
            fitted = [r["arena_bytes"] for _, r in rows if r.get("fits")]
            if floor is not None and fitted:
                low = searched if on_order is None else max(searched, on_order - 1)
                smallest = smallest_fit(arguments.olla, path, low, min(fitted),
                                        arguments.time_limit)
                reach.append(f"| {graph['name']} | {percent(floor, peak)} | "
                             f"{percent(searched, peak)} | {percent(on_order, peak)} | "
                             f"{percent(smallest, peak)} | {ratio(floor, smallest)} | "
                             f"{'-' if on_order is None else ratio(on_order, smallest)} |")
                print(reach[-1], flush=True)
    out = ROOT / "bench" / "results" / "checkmate.md"
    out.write_text("\n".join(lines + (proofs + proof_rows if proof_rows else []) + reach) + "\n")
    print(out.read_text())


if __name__ == "__main__":
    main()
