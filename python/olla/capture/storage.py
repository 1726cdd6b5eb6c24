"""From a traced ATen graph to storage buffers: who allocates, who aliases, who writes.

Aliasing and writes come from each operator's schema (alias annotations such as
`Tensor(a)` for a view and `Tensor(a!)` for a write), never from operator names. Two
schemas in torch 2.11 under-declare and are corrected here (SCHEMA_CORRECTIONS).
"""

import operator

import torch

from .graph import Buffer, Graph, Op

# Behaviour that torch 2.11's schemas do not declare, keyed by the overload packet.
#   writes: argument positions the op writes in place (given a predicate on the call)
#   view_of: the argument position whose storage the (single) result aliases
SCHEMA_CORRECTIONS = {
    # Training-mode batch norm updates running_mean and running_var (arguments 3, 4).
    torch.ops.aten.native_batch_norm: {
        "writes": lambda args: (3, 4) if len(args) > 5 and args[5] else ()},
    # Returns a view of its input, declared as a fresh tensor.
    torch.ops.aten._unsafe_view: {"view_of": 0},
}


class CaptureError(Exception):
    """The model cannot be turned into an olla graph; the message says where."""


def storage_bytes(tensor):
    """Bytes of the storage a freshly allocated `tensor` needs (its strided extent)."""
    if tensor.numel() == 0:
        return 0
    extent = tensor.storage_offset() + 1
    for size, stride in zip(tensor.shape, tensor.stride()):
        extent += (size - 1) * stride
    return extent * tensor.element_size()


def op_type(target):
    schema = target._schema
    overload = schema.overload_name
    return f"{schema.name}.{overload}" if overload else schema.name


def _schema_arguments(node):
    """(argument schema, value) pairs of a call, positional and keyword."""
    schema = node.target._schema
    pairs = []
    for position, argument in enumerate(schema.arguments):
        if position < len(node.args):
            pairs.append((argument, node.args[position]))
        elif argument.name in node.kwargs:
            pairs.append((argument, node.kwargs[argument.name]))
    return pairs


def draws_random_numbers(node):
    """Whether a call draws random numbers: its schema is tagged nondeterministic_seeded,
    except the attention kernels called with `dropout_p` 0 (the tag is on the schema;
    at 0 the kernels never touch the generator, so a second run gives the same values)."""
    if torch.Tag.nondeterministic_seeded not in getattr(node.target, "tags", ()):
        return False
    for argument, value in _schema_arguments(node):
        if argument.name == "dropout_p":
            return value != 0
    dropout_p = [a for a in node.target._schema.arguments if a.name == "dropout_p"]
    return not dropout_p or dropout_p[0].default_value != 0


def _tensor_nodes(value):
    """The FX nodes inside an argument value (a node, or a list/tuple of them)."""
    if isinstance(value, torch.fx.Node):
        return [value]
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, torch.fx.Node)]
    return []


def flatten(value):
    """The leaves of nested lists and tuples, in order."""
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in flatten(v)]
    return [value]


class _Builder:
    """Walks the FX nodes in eager order and accumulates buffers, ops and edges."""

    def __init__(self, values, annotations, keep_random_order, device):
        self.values = values  # node -> its (fake) value
        self.device = device  # The step's: bytes elsewhere are not the plan's.
        # Chain the ops that draw random numbers, so that any order of the graph draws
        # them as the traced step did (the same dropout masks for the same seed).
        self.keep_random_order = keep_random_order
        self.last_random = None
        self.annotations = annotations  # node -> (phase, module path)
        self.buffers = []
        self.ops = []
        self.precedence = set()
        self.node_buffers = {}  # node name -> buffer id structure
        self.op_of_node = {}  # node name -> op id
        self.last_writer = {}  # buffer id -> op id that last wrote it
        self.readers = {}  # buffer id -> op ids reading its current contents

    def new_buffer(self, name, tensor, kind, persistent=False):
        # A tensor on another device than the step's (a CPU scalar in a CUDA step) takes
        # none of the memory the plan places: 0 bytes, and its allocator serves it.
        size = storage_bytes(tensor) if tensor.device == self.device else 0
        buffer = Buffer(id=len(self.buffers), name=name, size=size,
                        kind=kind, persistent=persistent, shape=tuple(tensor.shape),
                        dtype=str(tensor.dtype).replace("torch.", ""))
        self.buffers.append(buffer)
        return buffer.id

    def buffer_of(self, node, where):
        ids = self.node_buffers.get(node.name)
        if not isinstance(ids, int):
            raise CaptureError(f"{where}: argument '{node.name}' is not a tensor")
        return ids

    def add_op(self, node, allocates, uses, writes):
        phase, module = self.annotations.get(node, ("forward", ""))
        op_id = len(self.ops)
        name = f"{module}/{node.name}" if module else node.name
        random = draws_random_numbers(node)
        self.ops.append(Op(id=op_id, name=name, type=op_type(node.target), phase=phase,
                           allocates=allocates, uses=uses,
                           writes=[b for b in uses if b in writes], random=random))
        self.op_of_node[node.name] = op_id
        if self.keep_random_order and random:
            if self.last_random is not None:
                self.precedence.add((self.last_random, op_id))
            self.last_random = op_id
        for b in uses:
            # Readers (and writers) of the contents a write produced come after it.
            writer = self.last_writer.get(b)
            if writer is not None and writer != op_id:
                self.precedence.add((writer, op_id))
            if b in writes:
                # Everyone who read the old contents runs before they are overwritten.
                for reader in self.readers.pop(b, ()):
                    if reader != op_id:
                        self.precedence.add((reader, op_id))
                self.last_writer[b] = op_id
            else:
                self.readers.setdefault(b, []).append(op_id)

    def call(self, node):
        target = node.target
        where = f"op '{node.name}' ({op_type(target)})"
        schema = target._schema
        correction = SCHEMA_CORRECTIONS.get(target.overloadpacket, {})
        arguments = _schema_arguments(node)

        uses, writes, alias_sets = [], set(), []
        for argument, value in arguments:
            ids = [self.buffer_of(n, where) for n in _tensor_nodes(value)]
            for b in ids:
                if b not in uses:
                    uses.append(b)
            alias = argument.alias_info
            if alias is not None and ids:
                alias_sets.append((alias.before_set, ids))
                if alias.is_write:
                    writes.update(ids)
        for position in correction.get("writes", lambda args: ())(node.args):
            writes.update(self.buffer_of(n, where) for n in _tensor_nodes(node.args[position]))

        value = self.values[node]
        allocates = []

        def result(ret_schema, tensor, index):
            if tensor is None:
                return None
            if not isinstance(tensor, torch.Tensor):
                raise CaptureError(f"{where}: result {index} is not a tensor")
            alias = ret_schema.alias_info
            if "view_of" in correction:
                return self.buffer_of(node.args[correction["view_of"]], where)
            if alias is not None:
                matches = [ids for before, ids in alias_sets if before & alias.before_set]
                if not alias.before_set and len(alias_sets) == 1:
                    matches = [alias_sets[0][1]]  # `Tensor(a)[]`: the set is on the elements
                if len(matches) != 1 or len(matches[0]) != 1:
                    raise CaptureError(f"{where}: cannot tell which input result {index} aliases")
                return matches[0][0]
            phase = self.annotations.get(node, ("forward", ""))[0]
            kind = "gradient" if phase == "backward" else "activation"
            b = self.new_buffer(f"{node.name}:{index}", tensor, kind)
            allocates.append(b)
            return b

        returns = schema.returns
        if not returns:  # Only writes its inputs (torch._fused_adamw_).
            ids = ()
        elif len(returns) == 1 and not isinstance(value, (tuple, list)):
            ids = result(returns[0], value, 0)
        elif len(returns) == 1:  # one list-typed result, e.g. split's Tensor(a)[]
            ids = [result(returns[0], t, i) for i, t in enumerate(value)]
        else:
            ids = tuple(result(r, t, i) for i, (r, t) in enumerate(zip(returns, value)))
        self.node_buffers[node.name] = ids
        self.add_op(node, allocates, uses, writes)


def build_graph(gm, values, annotations, inputs, name, metadata, keep_random_order=False,
                device=torch.device("cpu")):
    """Converts a traced GraphModule into a Graph of the memory on `device`, the step's.

    values: node -> fake value of every node; annotations: node -> (phase, module path);
    inputs: per placeholder, in order, (name, kind) of the persistent buffer it is.
    keep_random_order: precedence edges between the ops that draw random numbers, in
    their traced order (olla.torch: the same random numbers as the eager step).
    """
    builder = _Builder(values, annotations, keep_random_order, device)
    placeholders = iter(inputs)
    outputs = []
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            input_name, kind = next(placeholders)
            value = values[node]
            builder.node_buffers[node.name] = (
                builder.new_buffer(input_name, value, kind, persistent=True)
                if isinstance(value, torch.Tensor) else None)
        elif node.op == "get_attr":  # a constant captured during tracing
            builder.node_buffers[node.name] = builder.new_buffer(
                node.target, values[node], "other", persistent=True)
        elif node.op == "call_function" and node.target is operator.getitem:
            source, index = node.args
            builder.node_buffers[node.name] = builder.node_buffers[source.name][index]
        elif node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload):
            builder.call(node)
        elif node.op == "output":
            outputs = [n for n in flatten(node.args) if isinstance(n, torch.fx.Node)]
        else:
            raise CaptureError(f"node '{node.name}': unsupported FX node {node.op} {node.target}")

    for n in outputs:
        ids = builder.node_buffers.get(n.name)
        for b in flatten(ids):
            if b is not None:
                builder.buffers[b].output = True
    # Persistent state written by the step (updated parameters, optimizer state,
    # running statistics) is an output of the step as well.
    for b in builder.last_writer:
        if builder.buffers[b].persistent:
            builder.buffers[b].output = True

    return Graph(name=name, buffers=builder.buffers, ops=builder.ops,
                 precedence=sorted(builder.precedence), metadata=metadata, fx=gm,
                 node_buffers=builder.node_buffers, op_of_node=builder.op_of_node)
