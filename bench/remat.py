"""Budget mode against per-block activation checkpointing: on transformer training graphs
at batch 32 (four of the zoo's and two torchvision models outside it), `olla optimize
--memory-budget` at half the eager activation peak, and the checkpointing a user would
write by hand (torch.utils.checkpoint around every block), compared at the memory the
checkpointing reaches; then how low olla goes against the recompute floor, the proven
least arena of any plan, and the order's floor, that of the plans on the order budget
mode searches. Writes bench/results/remat.md.

    .venv/bin/python bench/remat.py [--olla build/bin/olla] [--time-limit 60]

Per-block checkpointing keeps each block's input and runs the block's forward again
when the backward pass reaches it: here, every forward op of the block that olla may
run twice (not dropout's random draws, not in-place ops or their victims: olla's own
rules, so the plan passes `olla check`) is recomputed, in forward order, just before the
block's first backward op that reads a copy. Its memory is the peak live bytes `olla
check` measures on that plan (the eager order, no placement), its added compute the
same estimate from shapes olla reports (src/olla/remat/cost.h). Blocks are the modules
whose path ends in a numbered layer ("blocks.3", "encoder.layers.encoder_layer_3").
"""

import argparse
import gzip
import json
import pathlib
import re
import subprocess
import sys
import tempfile

from machine import machine

ROOT = pathlib.Path(__file__).resolve().parents[1]
ZOO = ["gpt2_small", "roberta_base", "vit_b_16", "transformer"]
OUTSIDE = ["swin_t", "vit_b_32"]  # torchvision models outside the zoo
BLOCK = re.compile(r"^(.*?(?:layers?|blocks?|features)\.(?:[A-Za-z_]*?)?\d+)(?:[./]|$)")
RANDOM = ("dropout", "bernoulli", "rand", "normal", "uniform", "multinomial")
GIB = 1 << 30


def run(arguments):
    result = subprocess.run(arguments, capture_output=True, text=True)
    if result.returncode not in (0, 2):
        raise SystemExit(f"{' '.join(arguments)} failed: {result.stderr.strip()}")
    return result


def base_name(op_type):
    return op_type.split("::")[-1].split(".")[0]


def checkpoint_plan(graph):
    """The per-block checkpointing plan (see the module's documentation) as plan JSON."""
    ops = graph["ops"]
    writes_in_place = [bool(op.get("writes")) or base_name(op.get("type", "")).endswith("_")
                       or "batch_norm" in op.get("type", "") for op in ops]
    overwritten = set()
    for op, writes in zip(ops, writes_in_place):
        if writes:
            overwritten.update(set(op.get("writes") or op["uses"]) - set(op["allocates"]))
    users = {}
    for index, op in enumerate(ops):
        for b in op["uses"]:
            users.setdefault(b, []).append(index)
    block_of = {}
    for index, op in enumerate(ops):
        match = BLOCK.match(op["name"].split("/")[0])
        if op.get("phase", "forward") == "forward" and match:
            block_of[index] = match.group(1)
    recomputable = [
        index for index in block_of
        if ops[index]["allocates"] and not writes_in_place[index]
        and not ops[index].get("random")
        and not any(r in base_name(ops[index].get("type", "")) for r in RANDOM)
        and not overwritten & set(ops[index]["allocates"])]
    chosen = set(recomputable)
    while True:  # Drop runs whose copies nobody reads.
        serves = {i: sorted({u for b in ops[i]["allocates"] for u in users.get(b, ())
                             if ops[u].get("phase") == "backward"}) for i in chosen}
        feeds = {i: sorted({j for j in chosen if j != i and block_of[j] == block_of[i]
                            and set(ops[j]["uses"]) & set(ops[i]["allocates"])})
                 for i in chosen}
        idle = {i for i in chosen if not serves[i] and not feeds[i]}
        if not idle:
            break
        chosen -= idle
    next_op = max(op["id"] for op in ops) + 1
    next_buffer = max(b["id"] for b in graph["buffers"]) + 1
    order_of = sorted(chosen)
    run_id = {}
    entries = []
    for i in order_of:
        run_id[i] = next_op
        next_op += 1
    for i in order_of:
        copies = list(range(next_buffer, next_buffer + len(ops[i]["allocates"])))
        next_buffer += len(copies)
        entries.append({"op": ops[i]["id"], "id": run_id[i], "copies": copies,
                        "serves": [ops[u]["id"] for u in serves[i]]
                        + [run_id[j] for j in feeds[i]]})
    # Each block's runs, in forward order, just before its first served backward op.
    first_server = {}
    for i in order_of:
        for u in serves[i]:
            block = block_of[i]
            first_server[block] = min(first_server.get(block, len(ops)), u)
    order = []
    for index, op in enumerate(ops):
        for block, position in sorted(first_server.items()):
            if position == index:
                order += [run_id[i] for i in order_of if block_of[i] == block]
        order.append(op["id"])
    return {"format": "olla.plan", "version": 3, "graph": graph["name"],
            "recompute": entries, "order": order,
            "provenance": {"method": "per-block activation checkpointing (bench/remat.py)"}}


def optimize(olla, path, budget, time_limit):
    result = run([olla, "optimize", str(path), "--memory-budget", str(budget),
                  "--time-limit", str(time_limit), "--json"])
    return json.loads(result.stdout)


def row(olla, path, time_limit, work):
    graph = json.loads(gzip.open(path).read())
    simulated = json.loads(run([olla, "simulate", str(path), "--json"]).stdout)
    eager_peak = simulated["eager_peak_live_bytes"]
    half = optimize(olla, path, eager_peak // 2, time_limit)
    plan_path = work / "checkpoint.plan.json"
    plan_path.write_text(json.dumps(checkpoint_plan(graph)))
    checked = run([olla, "check", str(path), str(plan_path), "--json"])
    check = json.loads(checked.stdout)
    if not check["valid"]:
        raise SystemExit(f"{path}: the checkpointing plan is invalid: {check['error']}")
    at_checkpoint = optimize(olla, path, check["peak_live_bytes"], time_limit)
    floor = half["recompute_floor_bytes"]
    on_order = half.get("order_floor_bytes", 0)  # Absent where refuted at once.
    return {"graph": graph["name"], "ops": len(graph["ops"]), "eager": eager_peak,
            "half": half, "checkpoint_peak": check["peak_live_bytes"],
            "checkpoint_runs": check["recomputations"],
            "checkpoint_added": check["added_compute"], "at_checkpoint": at_checkpoint,
            "floor": floor,
            "smallest": smallest_fit(olla, path, max(floor, on_order), eager_peak,
                                     [half, at_checkpoint], time_limit)}


def smallest_fit(olla, path, low, high, fitted, time_limit, steps=8):
    """The report of the smallest arena olla fits, bisected over budgets from the
    order's floor (no plan on the order searched fits below it) to the smallest arena of
    the runs that fitted (`fitted`; the eager peak, which fits without recomputing,
    when none did): from the eager peak, the last step on swin_t was 11.6 MB."""
    best = None
    for report in fitted:
        if report["fits"] and report["arena_bytes"] < high:
            high, best = report["arena_bytes"], report
    for _ in range(steps):
        if high - low <= 1:
            break
        middle = (low + high) // 2
        report = optimize(olla, path, middle, time_limit)
        if report["fits"]:
            high, best = report["arena_bytes"], report
        else:
            low = middle
    return best or optimize(olla, path, high, time_limit)


def stage_seconds(report):
    return report["seconds"]


def arena(report):
    """The plan's arena, or why there is none (a budget below the recompute floor)."""
    if "arena_bytes" not in report:
        return f"none: below the floor, {report['recompute_floor_bytes'] / GIB:.2f} GiB"
    return f"{report['arena_bytes'] / GIB:.2f} GiB"


def markdown(rows, time_limit):
    lines = [
        "# Budget mode against per-block checkpointing",
        "",
        f"`bench/remat.py` on {machine()}; `olla optimize --memory-budget B --time-limit "
        f"{time_limit}`. Memory is peak live bytes of the activations (olla: the placed "
        "arena, never below it); compute added is the recomputed ops' cost over the whole "
        "step's, both estimated from shapes (src/olla/remat/cost.h: FLOPs for matmuls and "
        "convolutions, 16 per byte moved otherwise). Per-block checkpointing recomputes "
        "every forward op of every block that may run twice, as torch.utils.checkpoint "
        "around each block would (dropout's masks stay saved: olla never draws random "
        "numbers twice).",
        "",
        "| graph | ops | eager peak | olla at 50 %: arena | fits | compute added | "
        "seconds | checkpointing: peak | compute added | olla at that peak: arena | "
        "compute added | seconds |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        half, same = r["half"], r["at_checkpoint"]
        lines.append(
            f"| {r['graph']} | {r['ops']} | {r['eager'] / GIB:.2f} GiB | "
            f"{arena(half)} | {'yes' if half['fits'] else 'no'} | "
            f"{100 * half.get('added_compute', 0):.1f} % | {stage_seconds(half):.1f} | "
            f"{r['checkpoint_peak'] / GIB:.2f} GiB "
            f"({100 * r['checkpoint_peak'] / r['eager']:.0f} %) | "
            f"{100 * r['checkpoint_added']:.1f} % | {arena(same)}"
            f"{'' if same['fits'] else ' (does not fit)'} | "
            f"{100 * same.get('added_compute', 0):.1f} % | {stage_seconds(same):.1f} |")
    lines += [
        "",
        "## How low: the floors against the smallest arena olla fits",
        "",
        "The recompute floor (src/olla/remat/recompute_floor.h, docs/budget.md) is "
        "proven: no plan, whatever it recomputes, peaks below it, and a budget under it "
        "is refuted before any search. The order's floor is proven for the plans on the "
        "order budget mode searches (raised by what later steps read, "
        "src/olla/remat/order_floor_proof.h), as the run at the smallest budget reports "
        "it. The smallest arena is bisected over budgets between the order's floor and "
        "the smallest arena of the runs above that fitted (8 more runs of `olla optimize "
        "--memory-budget`); the gap is what neither the search nor the floors have "
        "closed.",
        "",
        "| graph | eager peak | recompute floor | order's floor | smallest arena fitted | "
        "compute added there | floor / arena | order's floor / arena |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        smallest = r["smallest"]
        on_order = max(r["floor"], smallest.get("order_floor_bytes", 0))
        lines.append(
            f"| {r['graph']} | {r['eager'] / GIB:.2f} GiB | {r['floor'] / GIB:.3f} GiB "
            f"({100 * r['floor'] / r['eager']:.0f} %) | {on_order / GIB:.3f} GiB | "
            f"{smallest['arena_bytes'] / GIB:.3f} GiB "
            f"({100 * smallest['arena_bytes'] / r['eager']:.0f} %) | "
            f"{100 * smallest.get('added_compute', 0):.1f} % | "
            f"{100 * r['floor'] / smallest['arena_bytes']:.1f} % | "
            f"{100 * on_order / smallest['arena_bytes']:.1f} % |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--olla", default=str(ROOT / "build/bin/olla"))
    parser.add_argument("--time-limit", type=float, default=60)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as directory:
        work = pathlib.Path(directory)
        paths = [ROOT / "models" / f"{name}.train.b32.json.gz" for name in ZOO]
        for name in OUTSIDE:
            path = work / f"{name}.train.b32.json.gz"
            subprocess.run([sys.executable, "-m", "olla.capture", name, "--batch", "32",
                            "-o", str(path)], check=True, capture_output=True)
            paths.append(path)
        for path in paths:
            rows.append(row(args.olla, path, args.time_limit, work))
            print(rows[-1]["graph"], "done", flush=True)
    out = ROOT / "bench" / "results" / "remat.md"
    out.write_text(markdown(rows, args.time_limit))
    print(out.read_text())


if __name__ == "__main__":
    main()
