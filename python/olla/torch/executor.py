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
scratch packed in the op's workspace slot, given to the arena once as a schedule. A
plan that recomputes (plan format 3) runs each recomputation's node a second time, its
outputs at the copies' offsets; the ops it serves read that run's values, through the
same views where they read a view of the dropped tensor (views are free, and the view
of the original would keep it). Both run the nodes as one generated function
(codegen.py).
"""

import operator

import torch
from torch._subclasses.fake_tensor import FakeTensor

from ..capture.step import Annotations
from ..capture.storage import flatten
from . import arena as arenas
from .codegen import compile_steps

def _round_up(size, alignment):
    return (size + alignment - 1) // alignment * alignment


class OpProfile:
    """One op's allocation requests in a real run: outputs {buffer: request index},
    and scratch [(request index, bytes, offset in the op's workspace)]: the requests
    freed before the op ended, packed first fit by when they were live (the index is
    -1, matched by size, for a request made on a kernel's worker thread, which is
    packed apart from every other), each at an offset aligned as the device's
    allocator aligns (`alignment`)."""

    def __init__(self, outputs, scratch, alignment):
        self.outputs = outputs
        self.scratch = scratch
        self.alignment = alignment

    def workspace(self):
        return max((offset + _round_up(size, self.alignment)
                    for _, size, offset in self.scratch), default=0)


def _pack_scratch(requests, alignment):
    """First-fit offsets for scratch requests [(index, size, freed_at, other_thread)],
    each live from its request to its free (counted in the announcing thread's
    requests), or, made on another thread, at any time during the op: [(index or -1
    for another thread's, size, offset)]."""
    packed = []
    for index, size, freed_at, other in requests:
        live = sorted((offset, offset + _round_up(size_, alignment))
                      for _, size_, offset, freed, other_ in packed
                      if other or other_ or freed > index)
        offset = 0
        for begin, end in live:
            if begin - offset >= _round_up(size, alignment):
                break
            offset = max(offset, end)
        packed.append((index, size, offset, freed_at, other))
    return [(-1 if other else index, size, offset)
            for index, size, offset, _, other in packed]


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


class _Step:
    """One node to run: `key` names its value (the node itself, or (recomputation
    index, node) for a recomputation's run and its unpackers); `refs` maps argument
    nodes to how to read them, where not by their own key: ("env", key), or ("view",
    node, refs), the view node made again on arguments read through refs."""

    __slots__ = ("node", "key", "refs", "grad", "slots")

    def __init__(self, node, key=None, refs=None):
        self.node = node
        self.key = node if key is None else key
        self.refs = refs or {}
        self.grad = grad_mode_of(node)
        self.slots = ()  # The planned allocations to announce before it runs.


def grad_mode_of(node):
    """Whether eager PyTorch runs `node` with grad mode on: the forward pass does, the
    backward pass (create_graph=False) and the update do not. Some kernels read it
    (mkldnn_rnn_layer keeps the workspace its backward needs only with grad mode on),
    so each op runs in its own; no argument requires grad (_detached), so nothing is
    recorded for autograd either way."""
    return Annotations.parse(node)[0] == "forward"


def detached(flat_arguments):
    """The step's arguments as the executor takes them: no tensor requires grad (the
    user's parameters are detached aliases; updates in place still reach them)."""
    return [t.detach() if isinstance(t, torch.Tensor) else t for t in flat_arguments]


def _ref_keys(ref, keys):
    if ref[0] == "env":
        keys.append(ref[1])
    else:
        for sub in ref[2].values():
            _ref_keys(sub, keys)


def _release_lists(steps, output):
    """Per position of `steps`, the values whose last use it is."""
    last_use = {}
    for position, step in enumerate(steps):
        for source in step.node.all_input_nodes:
            ref = step.refs.get(source)
            keys = [source]
            if ref is not None:
                keys = []
                _ref_keys(ref, keys)
            for key in keys:
                last_use[key] = position
        last_use.setdefault(step.key, position)  # A value no one reads goes at once.
    kept = set(output.all_input_nodes)
    release = [[] for _ in steps]
    for key, position in last_use.items():
        if key not in kept and not (isinstance(key, torch.fx.Node)
                                    and key.op in ("placeholder", "get_attr")):
            release[position].append(key)
    return release


def run_traced(graph, flat_arguments, before=None, after=None):
    """Runs graph.fx in its traced order on `flat_arguments` (which it updates), with
    whatever allocator is installed, calling before(position) and after(node, value)
    around each op (codegen.compile_steps); returns the step's output."""
    nodes = list(graph.fx.graph.nodes)
    output = next(n for n in nodes if n.op == "output")
    steps = [_Step(node) for node in nodes if node.op == "call_function"]
    run = compile_steps(steps, [n for n in nodes if n.op == "placeholder"],
                        _release_lists(steps, output), output, constants(graph.fx),
                        graph.scalar_slots or (), before is not None, after is not None)
    return run(detached(flat_arguments), before, after)


def calibrate(graph, flat_arguments):
    """Runs graph.fx in its traced order on `flat_arguments` (copies: the step updates
    them) with a counting allocator on the step's device; returns ({op id: OpProfile},
    the step's output).
    An output whose real size differs from the traced one gets the real size in the
    graph, and graph.metadata["resized_by_calibration"] lists it {buffer name:
    (traced bytes, real bytes)}."""
    profiles = {}
    resized = {}
    device = graph.step.device
    alignment = arenas.alignment(device)
    counter = arenas.new_arena(0, device)

    def before(position):
        counter.announce(())

    def after(node, value):
        op = graph.op_of_node.get(node.name)
        if op is None:
            return
        window = counter.window()
        # The arena numbers the announcing thread's requests only (a worker thread's
        # interleave with them differently in every run): own[p] is that number for
        # window position p (-1: another thread's), own_before[p] how many of them
        # came before position p.
        own, own_before = [], [0]
        for _, _, _, other in window:
            own.append(-1 if other else own_before[-1])
            own_before.append(own_before[-1] + (not other))
        index_of = {address: i for i, (size, address, _, _) in enumerate(window)
                    if address}
        outputs, taken = {}, set()
        allocated = set(graph.ops[op].allocates)
        for buffer, tensor in zip(flatten(graph.node_buffers[node.name]), flatten(value)):
            if not isinstance(tensor, torch.Tensor) or tensor.numel() == 0:
                continue
            position = index_of.get(tensor.untyped_storage().data_ptr())
            if position is None:
                continue
            taken.add(position)
            if buffer not in allocated:
                continue
            size = window[position][0]
            if size != graph.buffers[buffer].size:
                # The fake kernel the trace ran disagrees with the real one (CPU
                # batch norm on bf16 input under autocast keeps its statistics in
                # float32): the real run is what the plan must place.
                resized[graph.buffers[buffer].name] = (graph.buffers[buffer].size, size)
                graph.buffers[buffer].size = size
            # Another thread's request has no fixed index: announced by size.
            outputs[buffer] = own[position]
        # Scratch that outlives the op (a kernel's cache) is left to fall through.
        scratch = [(own[p], size, own_before[freed_at], other)
                   for p, (size, address, freed_at, other) in enumerate(window)
                   if size > 0 and p not in taken and freed_at >= 0]
        profiles[op] = OpProfile(outputs, _pack_scratch(scratch, alignment), alignment)

    with arenas.installed(counter):
        result = run_traced(graph, flat_arguments, before, after)
    other_stream = counter.stats()["other_stream"]
    if other_stream:
        # Kernels on a side stream could still read bytes the plan hands on.
        raise ValueError(f"olla cannot run this model's step: it allocated {other_stream} "
                         f"times on another CUDA stream than its own; olla plans one "
                         f"stream, and multiple streams are out of scope in this version")
    graph.metadata["resized_by_calibration"] = resized
    return profiles, result


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
        output = next(n for n in gm.graph.nodes if n.op == "output")
        steps = []
        # What each entry runs, as a recomputation or not, and whose copies it reads:
        # the library's reading of the plan (Plan.steps), not this file's.
        for planned in plan.steps:
            op, run = planned["op"], planned["recomputation"]
            node = nodes[node_of_op[op]]
            key = node if run is None else (run, node)
            refs = self._refs(graph, plan, nodes, node_of_op, node,
                              planned["reads_copies_of"])
            step = _Step(node, key, refs)
            steps.append(step)
            step.slots = self._slots(graph, plan, op, planned["entry"], profiles.get(op),
                                     planned["copies"])
            for unpacker in unpackers.get(node.name, ()):
                steps.append(_Step(unpacker, unpacker if run is None
                                        else (run, unpacker),
                                        {} if run is None else {node: ("env", key)}))
        # One announcement per op that is not an unpacking: compile_steps's positions.
        self.schedule = [step.slots for step in steps
                         if step.node.target is not operator.getitem]
        self.arena_bytes = plan.arena_bytes
        self.device = graph.step.device
        self._compiled = compile_steps(
            steps, [n for n in gm.graph.nodes if n.op == "placeholder"],
            _release_lists(steps, output), output, constants(gm),
            graph.scalar_slots or (), before=True)

    @staticmethod
    def _refs(graph, plan, nodes, node_of_op, node, feeders):
        """How `node` reads the values of the recomputations that serve or feed it: the
        run's own value (or its unpacked output), or a view of it made again."""
        if not feeders:
            return {}
        sources = {}  # recomputed op's node -> run index
        copied = {}   # dropped buffer -> run index
        for i in feeders:
            r = plan.recompute[i]
            sources[nodes[node_of_op[r["op"]]]] = i
            for buffer in graph.ops[r["op"]].allocates:
                copied[buffer] = i

        def resolve(arg):
            if arg in sources:
                return ("env", (sources[arg], arg))
            if (arg.target is operator.getitem and arg.args[0] in sources):
                return ("env", (sources[arg.args[0]], arg))
            buffers = [b for b in flatten(graph.node_buffers.get(arg.name))
                       if isinstance(b, int)]
            if arg.op != "call_function" or not any(b in copied for b in buffers):
                return None
            # A view of a dropped tensor: made again from the copy.
            inner = {}
            for source in arg.all_input_nodes:
                ref = resolve(source)
                if ref is not None:
                    inner[source] = ref
            return ("view", arg, inner) if inner else None

        refs = {}
        for arg in node.all_input_nodes:
            ref = resolve(arg)
            if ref is not None:
                refs[arg] = ref
        return refs

    @staticmethod
    def _slots(graph, plan, op, entry, profile, copies):
        """The planned allocations of the step running `op` (plan order entry `entry`:
        the op's id, or a recomputation's, whose outputs are `copies` {buffer: copy}):
        (offset, bytes, request index or -1)."""
        outputs = profile.outputs if profile else {}
        slots = []
        for b in graph.ops[op].allocates:
            placed = copies.get(b, b)
            if placed in plan.offsets and graph.buffers[b].size > 0:
                slots.append((plan.offsets[placed], graph.buffers[b].size,
                              outputs.get(b, -1)))
        if profile and entry in plan.workspace_offsets:
            base = plan.workspace_offsets[entry]
            slots += [(base + offset, size, request)
                      for request, size, offset in profile.scratch]
        return slots

    def new_arena(self):
        """An arena of the plan's bytes, on the step's device, that knows every op's
        planned allocations."""
        arena = arenas.new_arena(self.arena_bytes, self.device)
        arena.set_schedule(self.schedule)
        return arena

    def run(self, flat_arguments, arena):
        """Runs the step on `flat_arguments` (make_fx's flattening of the step's
        arguments) with `arena` (new_arena()'s) installed by the caller; returns the
        step's output."""
        result = self._compiled(detached(flat_arguments), arena.announce_scheduled)
        arena.announce(())
        return result


def flat_tensors(value):
    return [v for v in flatten(value) if isinstance(v, torch.Tensor)]
