#!/usr/bin/env python3
"""The end-to-end benchmark: `olla optimize` with its default options on every graph of
the model zoo (models/*.json.gz), timed as a user runs it (load, baselines, schedule,
place, check, report).

    bench/zoo.py [--olla build/bin/olla] [--time-limit 10]

Writes bench/results/zoo.md: per graph, the eager PyTorch baselines (the caching
allocator's reserved bytes and the ideal allocator's peak), what reordering alone gives
under the caching allocator, olla's peak, arena and bound, the saving of persistent +
arena against eager reserved, the seconds, and which parts are proven optimal.
"""

import argparse
import csv
import json
import pathlib
import statistics
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
ROAM = ROOT.parent / "shared" / "data" / "roam" / "results"

# ROAM's result tables name models without variants; the zoo graph each one is compared
# with (vgg and mnasnet are our guess at their variant: their tables do not say).
ROAM_MODELS = {"alexnet": "alexnet", "vgg": "vgg16", "mnasnet": "mnasnet0_5",
               "mobilenet": "mobilenet_v2", "efficientnet": "efficientnet_b0",
               "vit": "vit_b_16"}


def published():
    """{(zoo model, batch): (PyTorch reserved MB, MODeL MB, ROAM MB)} from ROAM's tables.

    PyTorch's reserved memory is their simulated peak over (1 - the fragmentation they
    measured), fragmentation being the reserved share never allocated."""
    if not ROAM.is_dir():
        return {}
    def rows(name):
        with open(ROAM / name) as f:
            return list(csv.DictReader(f))
    pytorch = {(r["model"], r["batch_size"]): float(r["simulated_mem_usage"]) /
               (1 - float(r["profile.max_mem_fragmentation"])) for r in rows("pt_res.csv")}
    model = {(r["model"], r["batch_size"]): float(r["address_generation.peak_mem_usage"])
             for r in rows("MODeL_ms.csv")}
    roam = {(r["model"], r["batch size"]): float(r["required memory"])
            for r in rows("ours_mem_ms.csv")}
    out = {}
    for (name, batch), reserved in pytorch.items():
        if name in ROAM_MODELS and (name, batch) in model and (name, batch) in roam:
            out[(ROAM_MODELS[name], batch)] = (reserved, model[(name, batch)],
                                               roam[(name, batch)])
    return out


def mib(n):
    return f"{n / 2**20:,.1f}"


def optimize(olla, path, time_limit):
    started = time.monotonic()
    result = subprocess.run([olla, "optimize", str(path), "--json", "--time-limit", time_limit],
                            capture_output=True, text=True, check=True)
    seconds = time.monotonic() - started
    report = json.loads(result.stdout)
    report["wall_seconds"] = seconds
    return report


def row(name, r):
    model, mode, batch = name.split(".")[:3]
    return (f"| {model} | {mode} | {batch[1:]} | {r['ops']} | {r['buffers']} | "
            f"{mib(r['eager_reserved_bytes'])} | {mib(r['eager_peak_live_bytes'])} | "
            f"{mib(r['reordered_reserved_bytes'])} | {mib(r['peak_live_bytes'])} | "
            f"{mib(r['arena_bytes'])} | {mib(r['lower_bound_bytes'])} | "
            f"{r.get('bound_method', '')} | {r.get('bound_seconds', 0):.2f} | "
            f"{100 * r['fragmentation']:.2f} | {100 * r['saving_vs_reserved']:.1f} | "
            f"{r['wall_seconds']:.2f} | {'yes' if r['optimal_order'] else 'no'} | "
            f"{'yes' if r['optimal_placement'] else 'no'} |")


def comparison(reports):
    """The table beside the published ROAM and MODeL (OLLA) savings."""
    rows = []
    for (model, batch), (reserved, model_mb, roam_mb) in sorted(published().items()):
        report = reports.get(f"{model}.train.b{batch}")
        if report is None:
            continue
        rows.append(f"| {model} | {batch} | {100 * report['saving_vs_reserved']:.1f} | "
                    f"{100 * (1 - model_mb / reserved):.1f} | "
                    f"{100 * (1 - roam_mb / reserved):.1f} |")
    if not rows:
        return []
    return [
        "",
        "## Beside the published ROAM and MODeL (OLLA) figures",
        "",
        "Savings against PyTorch's reserved memory, in percent. Ours: this table. Theirs: "
        "`../shared/data/roam` (ROAM's repository, `results/`), each against the reserved "
        "memory implied by their own PyTorch figures (simulated peak / (1 − measured "
        "fragmentation)); MODeL's is its final plan (`address_generation.peak_mem_usage`), "
        "ROAM's its `required memory`. Their graphs come from other torch versions and "
        "another importer, so rows compare methods loosely, not plans.",
        "",
        "| model | batch | olla % | MODeL % (published) | ROAM % (published) |",
        "|---|---|---|---|---|",
        *rows,
        "",
        "Where they report more, the difference is mostly not memory a valid plan can save. "
        "MODeL's importer (facebookresearch/MODel_opt, "
        "`model_opt/torch/torch_graph_importer.py`) treats in-place activations such as "
        "`relu_`, `hardtanh_` (ReLU6) and `silu_` like views: its cleanup bypasses and "
        "deletes them, handing their consumers to the input tensor. With the in-place op "
        "gone, nothing orders the copy autograd makes of the input for the backward pass "
        "before the write that clobbers that input, and the scheduler is free to run the "
        "copy late, after the clamp, where it needs no memory at the forward peak but "
        "holds the wrong values. That is how MODeL's final mobilenet_v2 plan at batch 32 "
        "comes to 1,710 MB, weights included, while every valid order of the step keeps at "
        "least 2,383 MiB (2,499 MB) of activations live at once (the proven bound in the "
        "table above). On efficientnet_b0 the same freedom reorders `silu_` against its "
        "saved input, which changes the gradients (measured when this project began; "
        "../shared/DESIGN.md). ROAM reuses that importer. olla's graph keeps the edge "
        "every in-place write needs (docs/capture.md), so its bound holds for every "
        "correct execution, and those published rows are not valid plans. The batch-1 "
        "rows differ for another reason: their PyTorch baseline carries 53–80 % measured "
        "fragmentation on mobilenet, mnasnet and efficientnet, where our caching-"
        "allocator model of the same steps shows 5–20 %, so the same plan saves more "
        "against theirs.",
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--olla", default=str(ROOT / "build" / "bin" / "olla"))
    parser.add_argument("--time-limit", default="10")
    arguments = parser.parse_args()
    graphs = sorted((ROOT / "models").glob("*.json.gz"))
    reports = {}
    for path in graphs:
        name = path.name[:-len(".json.gz")]
        reports[name] = optimize(arguments.olla, path, arguments.time_limit)
        print(name, f"{100 * reports[name]['saving_vs_reserved']:.1f} %",
              f"{reports[name]['wall_seconds']:.2f} s", flush=True)

    train = {n: r for n, r in reports.items() if ".train." in n}
    seconds = [r["wall_seconds"] for r in reports.values()]
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                if line.startswith("model name")), "unknown CPU")
    lines = [
        "# `olla optimize` on the model zoo",
        "",
        f"`bench/zoo.py` on {len(reports)} graphs, default options (`--time-limit "
        f"{arguments.time_limit}`, 512-byte alignment). Machine: a shared 2-core {cpu}, "
        f"{time.strftime('%Y-%m-%d')}; seconds are wall clock of the whole command.",
        "",
        f"- Training graphs: mean saving against eager reserved "
        f"**{100 * statistics.mean(r['saving_vs_reserved'] for r in train.values()):.1f} %** "
        f"over {len(train)} graphs (min "
        f"{100 * min(r['saving_vs_reserved'] for r in train.values()):.1f} %, max "
        f"{100 * max(r['saving_vs_reserved'] for r in train.values()):.1f} %).",
        f"- Every plan passed the checker (olla writes no other); fragmentation at most "
        f"{100 * max(r['fragmentation'] for r in reports.values()):.2f} % over all graphs.",
        f"- Seconds: median {statistics.median(seconds):.2f}, max {max(seconds):.2f}; the "
        f"min-cut bound and case splits at most "
        f"{max(r.get('bound_seconds', 0) for r in reports.values()):.2f} s on a graph.",
        f"- Orders proven optimal: {sum(r['optimal_order'] for r in train.values())} of "
        f"{len(train)} training graphs; arenas at the order's rounded peak: "
        f"{sum(r['optimal_placement'] for r in reports.values())} of {len(reports)} graphs.",
        "",
        "Columns (MiB): *eager reserved* is the caching-allocator model's reserved bytes of "
        "the eager order, persistent included (what `torch.cuda.max_memory_reserved()` "
        "reports); *eager live* the ideal allocator's peak of the eager order; *reordered "
        "reserved* olla's order through the same allocator (reordering without placement); "
        "*peak* olla's order's peak live bytes; *arena* the placed arena (sizes rounded to "
        "512 B); *bound* the proven lower bound on any order's peak, *bound by* what proved "
        "it (forced-live; min-cut and case-split: docs/schedule.md; pieces: the exact search "
        "per piece), *bound s* the seconds its cuts and case splits took; "
        "*frag* arena over the "
        "order's rounded peak; *saving* 1 − (persistent + arena) / eager reserved.",
        "",
        "| model | mode | batch | ops | buffers | eager reserved | eager live | reordered "
        "reserved | peak | arena | bound | bound by | bound s | frag % | saving % | seconds | "
        "optimal order | optimal arena |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [row(name, r) for name, r in reports.items()]
    lines += comparison(reports)
    out = ROOT / "bench" / "results" / "zoo.md"
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
