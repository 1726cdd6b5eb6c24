"""An independent Python reading of the memory model (docs/graph-format.md), against the
olla command on random graphs and random plans: the eager peak `olla simulate` reports,
and the verdict and peak of `olla check`, must match this reference exactly."""

import itertools
import json
import os
import pathlib
import random
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
OLLA = os.environ.get("OLLA_BINARY", str(ROOT / "build" / "bin" / "olla"))


def random_graph(rng, num_ops):
    """A random valid graph in file form: ids are shuffled, sparse integers."""
    buffer_ids = rng.sample(range(1000), 4 * num_ops)
    op_ids = rng.sample(range(1000), num_ops)
    buffers, ops, available = [], [], []
    next_buffer = iter(buffer_ids)
    for index in range(num_ops):
        uses = []
        for _ in range(rng.randint(0, 3)):
            if not available or rng.random() < 0.2:
                buffer = {"id": next(next_buffer), "size": rng.randint(0, 64), "kind": "input"}
                buffer["persistent"] = rng.random() < 0.3
                buffers.append(buffer)
                available.append(buffer["id"])
            uses.append(rng.choice(available))
        allocates = []
        for _ in range(rng.randint(0, 2)):
            buffer = {"id": next(next_buffer), "size": rng.randint(0, 64)}
            buffer["output"] = rng.random() < 0.1
            buffers.append(buffer)
            allocates.append(buffer["id"])
        available.extend(allocates)
        ops.append({"id": op_ids[index], "name": f"op{index}", "allocates": allocates,
                    "uses": uses, "workspace": rng.choice([0, 0, 0, rng.randint(1, 32)])})
    precedence = [[ops[a]["id"], ops[b]["id"]]
                  for a, b in itertools.combinations(range(num_ops), 2) if rng.random() < 0.1]
    return {"version": 1, "name": "random", "buffers": buffers, "ops": ops,
            "precedence": precedence}


def edges(graph):
    producer = {b: op["id"] for op in graph["ops"] for b in op["allocates"]}
    result = {tuple(edge) for edge in graph["precedence"]}
    for op in graph["ops"]:
        for b in op["uses"]:
            if b in producer and producer[b] != op["id"]:
                result.add((producer[b], op["id"]))
    return result


def lifetimes(graph, order):
    """Half-open [start, end) step interval of every non-persistent buffer."""
    step = {op_id: s for s, op_id in enumerate(order)}
    ops = {op["id"]: op for op in graph["ops"]}
    life = {}
    for buffer in graph["buffers"]:
        if buffer.get("persistent"):
            continue
        producers = [o for o in ops.values() if buffer["id"] in o["allocates"]]
        start = step[producers[0]["id"]] if producers else 0
        uses = [step[o["id"]] for o in ops.values() if buffer["id"] in o["uses"]]
        end = max([start + 1] + [u + 1 for u in uses])
        if buffer.get("output"):
            end = len(order)
        life[buffer["id"]] = (start, end)
    return life


def peak(graph, order):
    sizes = {b["id"]: b["size"] for b in graph["buffers"]}
    ops = {op["id"]: op for op in graph["ops"]}
    life = lifetimes(graph, order)
    return max(sum(sizes[b] for b, (s, e) in life.items() if s <= t < e) +
               ops[order[t]]["workspace"] for t in range(len(order)))


def valid(graph, order, offsets, arena):
    step = {op_id: s for s, op_id in enumerate(order)}
    if sorted(order) != sorted(op["id"] for op in graph["ops"]):
        return False
    if any(step[a] > step[b] for a, b in edges(graph)):
        return False
    sizes = {b["id"]: b["size"] for b in graph["buffers"]}
    life = lifetimes(graph, order)
    for b, (start, end) in life.items():
        if offsets[b] + sizes[b] > arena:
            return False
    for a, b in itertools.combinations(life, 2):
        same_time = life[a][0] < life[b][1] and life[b][0] < life[a][1]
        same_bytes = (offsets[a] < offsets[b] + sizes[b] and offsets[b] < offsets[a] + sizes[a]
                      and sizes[a] > 0 and sizes[b] > 0)
        if same_time and same_bytes:
            return False
    return True


def random_valid_order(rng, graph):
    pending = {op["id"] for op in graph["ops"]}
    deps = edges(graph)
    order = []
    while pending:
        ready = sorted(o for o in pending if not any(a in pending and b == o for a, b in deps))
        chosen = rng.choice(ready)
        order.append(chosen)
        pending.remove(chosen)
    return order


def olla(*args):
    result = subprocess.run([OLLA, *args], capture_output=True, text=True, timeout=60)
    return result.returncode, result.stdout, result.stderr


@pytest.mark.parametrize("seed", range(40))
def test_simulate_and_check_match_the_reference(seed, tmp_path):
    rng = random.Random(seed)
    graph = random_graph(rng, rng.randint(1, 9))
    graph_path = tmp_path / "graph.json"
    graph_path.write_text(json.dumps(graph))

    code, out, err = olla("simulate", "--json", str(graph_path))
    assert code == 0, err
    eager = [op["id"] for op in graph["ops"]]
    assert json.loads(out)["eager_peak_live_bytes"] == peak(graph, eager)

    for attempt in range(5):
        order = random_valid_order(rng, graph) if attempt < 4 else rng.sample(eager, len(eager))
        placed = [b for b in graph["buffers"] if not b.get("persistent")]
        if attempt == 0:  # Buffers stacked end to end: valid whenever the order is.
            stacked = itertools.accumulate([b["size"] for b in placed], initial=0)
            offsets = dict(zip([b["id"] for b in placed], stacked))
        else:
            offsets = {b["id"]: rng.randint(0, 96) for b in placed}
        arena = max([160] + [offsets[b["id"]] + b["size"] for b in placed])
        plan = {"version": 1, "order": order, "arena_bytes": arena,
                "offsets": [{"buffer": b, "offset": o} for b, o in offsets.items()]}
        plan_path = tmp_path / f"plan{attempt}.json"
        plan_path.write_text(json.dumps(plan))
        code, out, err = olla("check", "--json", str(graph_path), str(plan_path))
        verdict = json.loads(out)
        expected = valid(graph, order, offsets, arena)
        assert verdict["valid"] == expected, verdict.get("error")
        assert code == (0 if expected else 1)
        if expected:
            assert verdict["peak_live_bytes"] == peak(graph, order)
