"""Measured against estimated op costs on five zoo models: how well the estimate from
shapes ranks the ops budget mode may recompute, and what the plans chosen by each cost
once their compute is counted as measured.

    .venv/bin/python bench/costs.py [--olla build/bin/olla] [--time-limit 20]

Each model's training step is captured with `python -m olla.capture --measure-costs`
(every op timed on this machine: the median of three runs after a warm one), and the
same graph without the costs is the estimated one. For the forward ops that allocate
(the ones budget mode may run again), the Spearman rank correlation between the two
costs (olla.op_costs, what budget mode weighs). Then `olla optimize --memory-budget` on
both graphs at 90 % and 80 % of the arena without recomputation, and each plan's
added compute counted with the measured costs (`olla check` on the measured graph):
the plan chosen by the estimate against the one chosen by measurement, and the overlap
of the ops they run again. Writes bench/results/costs.md.
"""

import argparse
import gzip
import json
import pathlib
import subprocess
import sys
import tempfile

from machine import machine

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
import olla  # noqa: E402  (the package of this checkout)

MODELS = [("resnet18", 8), ("mobilenet_v2", 8), ("transformer_small", 8),
          ("vit_b_16", 2), ("gpt2_small", 1)]
SHARES = [0.9, 0.8]  # Of the arena without recomputation (small batches: the weights'
#                     gradients and the optimizer's temporaries bound how low it goes).


def ranks(values):
    """Ranks from 1, ties sharing their mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    result = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            result[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return result


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    mean = (n + 1) / 2
    cov = sum((x - mean) * (y - mean) for x, y in zip(ra, rb))
    var_a = sum((x - mean) ** 2 for x in ra)
    var_b = sum((y - mean) ** 2 for y in rb)
    return cov / (var_a * var_b) ** 0.5


def run(arguments, ok=(0,)):
    result = subprocess.run([str(a) for a in arguments], capture_output=True, text=True)
    if result.returncode not in ok:
        raise SystemExit(f"{' '.join(map(str, arguments))}: {result.stderr.strip()}")
    return result


def plan(binary, graph, budget, out, time_limit):
    """The report of budget mode on `graph` at `budget` bytes, the plan in `out`."""
    result = run([binary, "optimize", graph, "--memory-budget", budget, "--time-limit",
                  time_limit, "--json", "-o", out], ok=(0, 2))
    return json.loads(result.stdout)


def measured_compute(binary, graph, plan_file):
    """The plan's added compute under the graph's (measured) costs: `olla check`."""
    return json.loads(run([binary, "check", graph, plan_file, "--json"]).stdout)


def recomputed(plan_file):
    with open(plan_file) as f:
        return {r["op"] for r in json.load(f).get("recompute", [])}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--olla", default=str(ROOT / "build" / "bin" / "olla"))
    parser.add_argument("--time-limit", default="20")
    arguments = parser.parse_args()
    lines = ["# Measured against estimated op costs", "",
             f"`bench/costs.py` on {machine()}: each step captured with `python -m "
             "olla.capture MODEL --batch B --measure-costs` (CPU timings), the same graph "
             "without costs for the estimate. Rank correlation: Spearman's, measured "
             "against estimated cost, over the forward ops that allocate (those budget "
             "mode may run again). Plans: `olla optimize --memory-budget` at a share of "
             "the arena without recomputation, each plan's added compute counted with "
             "the measured costs (`olla check`); overlap: the ops both plans run again "
             "over those either does.", "",
             "| model | batch | forward ops | rank correlation | budget | chosen by estimate "
             "| chosen by measurement | overlap |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    with tempfile.TemporaryDirectory() as directory:
        folder = pathlib.Path(directory)
        for model, batch in MODELS:
            measured = folder / f"{model}.measured.json.gz"
            run([sys.executable, "-m", "olla.capture", model, "--batch", batch,
                 "--measure-costs", "-o", measured])
            with gzip.open(measured, "rt") as f:
                graph = json.load(f)
            for op in graph["ops"]:
                op.pop("cost", None)
            estimated = folder / f"{model}.estimated.json"
            estimated.write_text(json.dumps(graph))
            forward = [i for i, op in enumerate(graph["ops"])
                       if op.get("phase", "forward") == "forward" and op["allocates"]]
            by_measure = olla.op_costs(measured)
            by_estimate = olla.op_costs(estimated)
            rho = spearman([by_measure[i] for i in forward], [by_estimate[i] for i in forward])
            arena = json.loads(run([arguments.olla, "optimize", measured, "--time-limit",
                                    arguments.time_limit, "--json"]).stdout)["arena_bytes"]
            for share in SHARES:
                budget = int(arena * share)
                cells = []
                ops = []
                for name, source in (("estimate", estimated), ("measure", measured)):
                    out = folder / f"{model}.{name}.{share}.plan.json"
                    report = plan(arguments.olla, source, budget, out, arguments.time_limit)
                    if report.get("conclusion") != "planned":
                        cells.append(report.get("conclusion", "no plan"))
                        ops.append(None)
                        continue
                    check = measured_compute(arguments.olla, measured, out)
                    cells.append(f"{100 * check['added_compute']:.2f} %")
                    ops.append(recomputed(out))
                overlap = "-"
                if all(o is not None for o in ops) and (ops[0] | ops[1]):
                    overlap = f"{len(ops[0] & ops[1]) / len(ops[0] | ops[1]):.2f}"
                lines.append(f"| {model} | {batch} | {len(forward)} | {rho:.2f} | "
                             f"{100 * share:.0f} % | {cells[0]} | {cells[1]} | {overlap} |")
                print(lines[-1], flush=True)
    out = ROOT / "bench" / "results" / "costs.md"
    out.write_text("\n".join(lines) + "\n")
    print(out.read_text())


if __name__ == "__main__":
    main()
