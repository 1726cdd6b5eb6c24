"""Runs a traced step's nodes in a plan's order, every allocation the plan knows at its
planned offset.

The traced GraphModule (olla.capture) is a flat list of ATen calls. calibrate() runs it
once, in the traced order, on copies of the step's arguments, and records each op's
allocation requests: which request became each output (kernels often allocate
temporaries of their output's size first: a CPU convolution allocates three tensors of
its output's size and returns the last), and the scratch requests besides them, whose
sum becomes the op's workspace in the graph, so that the plan places scratch too.

PlanExecutor reorders the nodes by the plan's op order (getitem nodes follow the node
they unpack), drops each value right after its last use in that order, as the plan's
lifetimes assume, and before each op announces to the arena the op's planned
allocations: (offset, bytes, request index), outputs at their buffers' offsets and
scratch packed in the op's workspace slot.
"""

import operator

import torch
from torch._subclasses.fake_tensor import FakeTensor

from ..capture.storage import flatten
from . import arena as arenas

_SCRATCH_ALIGNMENT = 64  # As PyTorch's CPU allocator aligns.


def _round_up(size, alignment):
    return (size + alignment - 1) // alignment * alignment


class OpProfile:
    """One op's allocation requests in a real run: outputs {buffer: request index},
    and scratch [(request index, bytes, offset in the op's workspace)]: the requests
    freed before the op ended, packed first fit by when they were live."""

    def __init__(self, outputs, scratch):
        self.outputs = outputs
        self.scratch = scratch

    def workspace(self):
        return max((offset + _round_up(size, _SCRATCH_ALIGNMENT)
                    for _, size, offset in self.scratch), default=0)


def _pack_scratch(requests):
    """First-fit offsets for scratch requests [(index, size, freed_at)], each live from
    its request to its free (in request counts): [(index, size, offset)]."""
    packed = []
    for index, size, freed_at in requests:
        live = sorted((offset, offset + _round_up(other, _SCRATCH_ALIGNMENT))
                      for _, other, offset, freed in packed if freed > index)
        offset = 0
        for begin, end in live:
            if begin - offset >= _round_up(size, _SCRATCH_ALIGNMENT):
                break
            offset = max(offset, end)
        packed.append((index, size, offset, freed_at))
    return [(index, size, offset) for index, size, offset, _ in packed]


def _load(env, value):
    if isinstance(value, torch.fx.Node):
        return env[value]
    if isinstance(value, (list, tuple)):
        return type(value)(_load(env, v) for v in value)
    return value


def constants(gm):
    """The tensors the trace lifted into the module (get_attr nodes): a module's plain
    tensor attributes, for example swin_t's relative position index."""
    values = {}
    for node in gm.graph.nodes:
        if node.op == "get_attr":
            value = getattr(gm, node.target)
            if isinstance(value, FakeTensor):
                raise ValueError(f"olla cannot run this model's step: the tensor constant "
                                 f"'{node.target}' was created during tracing")
            values[node] = value
    return values


def _run_nodes(order, placeholders, flat_arguments, release, output, before, after,
               lifted):
    """Runs `order`, calling before(node) and after(node, value) around each op, and
    dropping the values listed in release[position] after each node. lifted: the
    get_attr nodes' tensors (constants())."""
    env = dict(zip(placeholders, flat_arguments))
    env.update(lifted)
    with torch.no_grad():
        for position, node in enumerate(order):
            args = _load(env, node.args)
            if node.target is operator.getitem:
                env[node] = args[0][args[1]]
            else:
                kwargs = {k: _load(env, v) for k, v in node.kwargs.items()}
                before(node)
                env[node] = node.target(*args, **kwargs)
                after(node, env[node])
            for done in release[position]:
                del env[done]
        return _load(env, output.args[0])


def _release_lists(order, output):
    """Per position of `order`, the values whose last use it is."""
    last_use = {}
    for position, node in enumerate(order):
        for source in node.all_input_nodes:
            last_use[source] = position
        last_use.setdefault(node, position)  # A value no one reads goes at once.
    kept = set(output.all_input_nodes)
    release = [[] for _ in order]
    for node, position in last_use.items():
        if node not in kept and node.op not in ("placeholder", "get_attr"):
            release[position].append(node)
    return release


def calibrate(graph, flat_arguments):
    """Runs graph.fx in its traced order on `flat_arguments` (copies: the step updates
    them) with a counting allocator; returns {op id: OpProfile}."""
    gm = graph.fx
    nodes = list(gm.graph.nodes)
    placeholders = [n for n in nodes if n.op == "placeholder"]
    output = next(n for n in nodes if n.op == "output")
    order = [n for n in nodes if n.op == "call_function"]
    profiles = {}
    counter = arenas.new_arena(0)

    def before(node):
        counter.announce(())

    def after(node, value):
        op = graph.op_of_node.get(node.name)
        if op is None:
            return
        window = counter.window()
        index_of = {address: i for i, (size, address, _) in enumerate(window) if address}
        outputs, taken = {}, set()
        allocated = set(graph.ops[op].allocates)
        for buffer, tensor in zip(flatten(graph.node_buffers[node.name]), flatten(value)):
            if not isinstance(tensor, torch.Tensor) or tensor.numel() == 0:
                continue
            request = index_of.get(tensor.storage().data_ptr())
            if request is None:
                continue
            taken.add(request)
            if buffer in allocated and window[request][0] == graph.buffers[buffer].size:
                outputs[buffer] = request
        # Scratch that outlives the op (a kernel's cache) is left to fall through.
        scratch = [(i, size, freed_at) for i, (size, address, freed_at) in enumerate(window)
                   if size > 0 and i not in taken and freed_at >= 0]
        profiles[op] = OpProfile(outputs, _pack_scratch(scratch))

    with arenas.installed(counter):
        _run_nodes(order, placeholders, flat_arguments, _release_lists(order, output),
                   output, before, after, constants(gm))
    return profiles


class PlanExecutor:
    """The plan's order over `graph.fx`; run(arguments, arena) executes it."""

    def __init__(self, graph, plan, profiles):
        gm = graph.fx
        node_of_op = {op: name for name, op in graph.op_of_node.items()}
        nodes = {node.name: node for node in gm.graph.nodes}
        unpackers = {}
        for node in gm.graph.nodes:
            if node.op == "call_function" and node.target is operator.getitem:
                unpackers.setdefault(node.args[0].name, []).append(node)
        self.placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        self.output = next(n for n in gm.graph.nodes if n.op == "output")
        self.order = []
        for op in plan.order:
            node = nodes[node_of_op[op]]
            self.order.append(node)
            self.order.extend(unpackers.get(node.name, ()))
        self.release = _release_lists(self.order, self.output)
        self.lifted = constants(gm)
        self.slots = {}
        for node in self.order:
            op = graph.op_of_node.get(node.name)
            if op is not None:
                self.slots[node] = self._slots(graph, plan, op, profiles.get(op))

    @staticmethod
    def _slots(graph, plan, op, profile):
        """The op's planned allocations: (offset, bytes, request index or -1)."""
        outputs = profile.outputs if profile else {}
        slots = [(plan.offsets[b], graph.buffers[b].size, outputs.get(b, -1))
                 for b in graph.ops[op].allocates
                 if b in plan.offsets and graph.buffers[b].size > 0]
        if profile and op in plan.workspace_offsets:
            base = plan.workspace_offsets[op]
            slots += [(base + offset, size, request)
                      for request, size, offset in profile.scratch]
        return slots

    def run(self, flat_arguments, arena):
        """Runs the step on `flat_arguments` (make_fx's flattening of the step's
        arguments) with `arena` installed by the caller; returns the step's output."""
        slots = self.slots
        announce = arena.announce
        result = _run_nodes(self.order, self.placeholders, flat_arguments, self.release,
                            self.output, lambda node: announce(slots.get(node, ())),
                            lambda node, value: None, self.lifted)
        announce(())
        return result


def flat_tensors(value):
    return [v for v in flatten(value) if isinstance(v, torch.Tensor)]
