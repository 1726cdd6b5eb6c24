#!/usr/bin/env python3
"""The scheduling benchmark: every training graph of the zoo (models/*.train.*), each
scheduled by the heuristics and by `auto`, with and without running optimizer updates as
soon as their gradients are ready; the OLLA lifetime ILP with the paper's horizon on the
graphs of up to 300 ops; and a generated 100,000-op training-like graph.

    bench/schedule.py [--olla build/bin/olla] [--time-limit 8] [--ilp-time-limit 60]

Writes bench/results/schedule.md. Times are wall-clock seconds of the whole `olla
schedule` run (load, bounds, search, check) on this machine.
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def schedule(olla, path, *options):
    result = subprocess.run([olla, "schedule", str(path), "--json", *options],
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def mib(n):
    return f"{n / 2**20:,.1f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--olla", default=str(ROOT / "build" / "bin" / "olla"))
    parser.add_argument("--time-limit", default="8")
    parser.add_argument("--ilp-time-limit", default="60")
    arguments = parser.parse_args()
    olla = arguments.olla
    graphs = sorted((ROOT / "models").glob("*.train.*.json.gz"))

    rows, ilp_rows = [], []
    for path in graphs:
        auto = schedule(olla, path, "--time-limit", arguments.time_limit)
        free = schedule(olla, path, "--time-limit", arguments.time_limit, "--no-updates-asap")
        greedy = schedule(olla, path, "--method", "greedy")
        rows.append((path.name[:-8], auto, free, greedy))
        print(path.name, auto["peak_live_bytes"], auto["optimal"], f"{auto['seconds']:.2f}",
              flush=True)
        if auto["ops"] <= 300:
            ilp = schedule(olla, path, "--method", "ilp", "--ilp-horizon", "paper",
                           "--time-limit", arguments.ilp_time_limit)
            ilp_rows.append((path.name[:-8], auto, ilp))

    with tempfile.TemporaryDirectory() as directory:
        big = pathlib.Path(directory) / "g100k.json.gz"
        subprocess.run([olla, "generate", "--ops", "100000", "--seed", "1", "-o", str(big)],
                       check=True, capture_output=True)
        scale = schedule(olla, big, "--time-limit", "60")

    within = sum(1 for _, auto, _, _ in rows if auto["gap"] <= 0.01)
    seconds = [auto["seconds"] for _, auto, _, _ in rows]
    never_worse = all(auto["peak_live_bytes"] <= greedy["peak_live_bytes"]
                      for _, auto, _, greedy in rows)
    lines = [
        "# Scheduling benchmark",
        "",
        f"Machine: {os.cpu_count()} cores, shared and noisy; "
        f"{time.strftime('%Y-%m-%d', time.gmtime())}. `bench/schedule.py`, "
        f"`olla schedule --time-limit {arguments.time_limit}` (auto). Peaks in MiB of "
        "live non-persistent bytes; *gap* is (peak - lower bound) / peak.",
        "",
        f"- Within 1 % of the proven lower bound: {within} of {len(rows)} training graphs.",
        f"- Seconds per graph: median {statistics.median(seconds):.2f}, "
        f"max {max(seconds):.2f}.",
        f"- Never worse than the best heuristic: {'yes' if never_worse else 'NO'}.",
        "",
        "## Every training graph of the zoo, `--method auto`",
        "",
        "| graph | ops | eager | best heuristic | auto | lower bound | gap | optimal | "
        "below eager | s | auto without updates ASAP | pieces (exact) |",
        "|---|---:|---:|---|---:|---:|---:|---|---:|---:|---:|---|",
    ]
    for name, auto, free, greedy in rows:
        pieces = auto["pieces"]
        exact = sum(1 for p in pieces if p["optimal"])
        largest = max((p["ops"] for p in pieces), default=0)
        lines.append(
            f"| {name} | {auto['ops']} | {mib(auto['eager_peak_live_bytes'])} | "
            f"{greedy['method']} {mib(greedy['peak_live_bytes'])} | "
            f"{mib(auto['peak_live_bytes'])} | {mib(auto['lower_bound_bytes'])} | "
            f"{100 * auto['gap']:.2f} % | {'yes' if auto['optimal'] else 'no'} | "
            f"{100 * auto['below_eager']:.1f} % | {auto['seconds']:.2f} | "
            f"{mib(free['peak_live_bytes'])}{'' if free['optimal'] else ' (not proven)'} | "
            f"{len(pieces)}, largest {largest} ops ({exact} exact) |")
    lines += [
        "",
        "## The OLLA lifetime ILP, paper horizon (1.01 x critical path), graphs up to 300 ops",
        "",
        f"`--method ilp --ilp-horizon paper --time-limit {arguments.ilp_time_limit}`. The "
        "model counts every op of a step live together, so its objective over-counts; the "
        "order it gives is re-measured exactly.",
        "",
        "| graph | ops | steps | variables | constraints | ILP solved optimally | "
        "ILP order peak | auto peak | s |",
        "|---|---:|---:|---:|---:|---|---:|---:|---:|",
    ]
    for name, auto, ilp in ilp_rows:
        model = ilp["ilp"]
        lines.append(
            f"| {name} | {ilp['ops']} | {model['steps']} | {model['variables']} | "
            f"{model['constraints']} | {'yes' if model['optimal'] else 'no'} | "
            f"{mib(ilp['peak_live_bytes'])} | {mib(auto['peak_live_bytes'])} | "
            f"{ilp['seconds']:.1f} |")
    lines += [
        "",
        "## Scale: a generated 100,000-op training-like graph",
        "",
        f"`olla generate --ops 100000 --seed 1`, then `olla schedule --time-limit 60`: peak "
        f"{scale['peak_live_bytes']} B against eager {scale['eager_peak_live_bytes']} B "
        f"({100 * scale['below_eager']:.3f} % below), lower bound "
        f"{scale['lower_bound_bytes']} B, {scale['method']}, {scale['seconds']:.1f} s.",
        "",
    ]
    (ROOT / "bench" / "results" / "schedule.md").write_text("\n".join(lines))


if __name__ == "__main__":
    main()
