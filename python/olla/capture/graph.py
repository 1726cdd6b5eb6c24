"""The captured graph as olla's graph format, version 1 (docs/graph-format.md)."""

import dataclasses
import gzip
import json
from typing import Any, Dict, List, Optional, Tuple


@dataclasses.dataclass
class Buffer:
    id: int
    name: str
    size: int
    kind: str = "activation"
    persistent: bool = False
    output: bool = False
    shape: Tuple[int, ...] = ()
    dtype: str = ""

    def to_json(self):
        entry = {"id": self.id, "name": self.name, "size": self.size, "kind": self.kind}
        if self.persistent:
            entry["persistent"] = True
        if self.output:
            entry["output"] = True
        entry["shape"] = list(self.shape)
        entry["dtype"] = self.dtype
        return entry


@dataclasses.dataclass
class Op:
    id: int
    name: str
    type: str
    phase: str
    allocates: List[int]
    uses: List[int]
    writes: List[int] = dataclasses.field(default_factory=list)  # overwritten in place
    random: bool = False  # draws random numbers (its schema is nondeterministic_seeded)
    # Scratch bytes the op's kernel allocates besides its outputs (measured by
    # olla.torch's calibration run; fake-tensor capture cannot see it).
    workspace: int = 0
    # Seconds one run of the op takes, measured (olla.torch.costs); None: not measured.
    cost: Optional[float] = None

    def to_json(self):
        entry = {"id": self.id, "name": self.name, "type": self.type, "phase": self.phase,
                 "allocates": self.allocates, "uses": self.uses}
        if self.writes:
            entry["writes"] = self.writes
        if self.random:
            entry["random"] = True
        if self.workspace:
            entry["workspace"] = self.workspace
        if self.cost is not None:
            entry["cost"] = self.cost
        return entry


@dataclasses.dataclass
class Graph:
    """One training (or inference) step at the level of storage buffers.

    `fx` is the traced torch.fx.GraphModule the graph was derived from and
    `node_buffers` maps each of its node names to the buffer ids of its value (an int,
    or a tuple/list of them for multi-output nodes, None for non-tensors): what the
    faithfulness checks compare against a real run; `op_of_node` maps the names of
    operator nodes to their op ids.
    """
    name: str
    buffers: List[Buffer]
    ops: List[Op]
    precedence: List[Tuple[int, int]]
    metadata: Dict[str, Any]
    fx: Any = None
    node_buffers: Optional[Dict[str, Any]] = None
    op_of_node: Optional[Dict[str, int]] = None
    step: Any = None  # the TrainingStep that was traced (for replays and checks)
    # Where the optimizer's scalars sit in `fx` (capture/step.py apply_scalars).
    scalar_slots: Any = None

    def to_json(self):
        return {
            "format": "olla.graph",
            "version": 1,
            "name": self.name,
            "metadata": self.metadata,
            "buffers": [b.to_json() for b in self.buffers],
            "ops": [op.to_json() for op in self.ops],
            "precedence": [list(edge) for edge in self.precedence],
        }

    def persistent_bytes(self):
        return sum(b.size for b in self.buffers if b.persistent)


def save(graph, path):
    """Writes `graph` to `path`: gzip-compressed when the name ends in .gz."""
    text = json.dumps(graph.to_json(), separators=(",", ":")) + "\n"
    data = text.encode()
    if str(path).endswith(".gz"):
        # mtime=0: the same graph always gives the same bytes.
        with open(path, "wb") as raw, gzip.GzipFile(
                filename="", mode="wb", fileobj=raw, mtime=0) as out:
            out.write(data)
    else:
        with open(path, "wb") as out:
            out.write(data)
