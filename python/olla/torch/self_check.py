"""The self-check: the traced step against a real eager step, before olla plans it.

olla runs the graph the tracer recorded, so a tracer mistake (a view recorded with
strides that do not hold for real tensors, a kernel replaced by a decomposition that
rounds otherwise) would train another model without a word. Before the first planned
step, olla.torch.optimize runs the traced step once anyway (executor.calibrate, on
copies); the self-check then runs one eager step of the user's loop (capture.loop.Loop)
from the same state and the same random numbers, and compares the loss, every
parameter, buffer and optimizer state tensor bit for bit. The eager step runs on the
user's own model and optimizer, borrowed and put back as they were (its optimizer state
fresh, as the traced run's), so that code which reaches them directly (a gradient
clipping over model.parameters()) runs as in the user's loop. Where a tensor differs,
both steps run again, every op's output fingerprinted, to name the first traced op with
an output that eager PyTorch never produced.

Bitwise, with no tolerance: the traced graph calls the kernels eager PyTorch calls, on
the same values, so any difference is a different computation.
"""

import contextlib
import hashlib
import typing

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten, tree_unflatten

from ..capture.step import Annotations
from . import arena as arenas
from .executor import flat_tensors, run_traced


class SelfCheckError(ValueError):
    """The traced step computes something else than eager PyTorch; the message says
    what differs and the first op whose output does."""


class SelfCheck(typing.NamedTuple):
    """What the self-check found equal: `tensors` compared bit for bit, and the eager
    step's measured peak of live bytes above its state (`eager_peak_bytes`: through
    PyTorch's CPU allocator, the optimizer state a first step creates left out)."""
    tensors: int
    eager_peak_bytes: int


def _clones(tensors):
    return [t.detach().clone() for t in tensors]


@contextlib.contextmanager
def _borrowed(model, optimizer, fresh):
    """The user's model and optimizer for one reference step, and everything the step
    changes put back afterwards: the modules' parameter and buffer objects and values,
    the parameters' .grad, the optimizer's attributes. During the step the optimizer's
    state is `fresh`, as the traced step's is when calibrated."""
    modules = list(model.modules())
    slots = [(dict(m._parameters), dict(m._buffers)) for m in modules]
    tensors = {id(t): t for t in list(model.parameters()) + list(model.buffers())}
    for group in optimizer.param_groups:
        tensors.update((id(p), p) for p in group["params"])
    tensors = list(tensors.values())
    values = _clones(tensors)
    gradients = [t.grad for t in tensors]
    attributes = dict(vars(optimizer))
    optimizer.state = fresh
    try:
        yield
    finally:
        for module, (parameters, buffers) in zip(modules, slots):
            module._parameters.clear()
            module._parameters.update(parameters)
            module._buffers.clear()
            module._buffers.update(buffers)
        with torch.no_grad():
            for tensor, value, gradient in zip(tensors, values, gradients):
                tensor.copy_(value)
                tensor.grad = gradient
        vars(optimizer).clear()
        vars(optimizer).update(attributes)


def _eager_step(traced, record=None):
    """One eager step of the user's loop (Loop.eager_step) on the user's own model and
    optimizer, borrowed, through a counting allocator: returns what _compared reads,
    taken before they are put back, and the step's peak of live bytes (_steady_peak).
    record: a TorchDispatchMode to run the step under."""
    model = traced.model
    optimizer = traced.optimizer.eager_optimizer()
    counter = arenas.new_arena(0, traced.device)
    with _borrowed(model, optimizer, traced.optimizer.fresh_torch_state()):
        with record or contextlib.nullcontext(), arenas.installed(counter):
            loss = traced.loop.eager_step(model, optimizer, traced.loss_fn, traced.inputs,
                                          traced.targets, traced.kwargs)
        named = dict(model.named_parameters())
        named.update(model.named_buffers())
        names = traced.optimizer.state_names()
        created = {t.untyped_storage().data_ptr() for state in optimizer.state.values()
                   for t in state.values() if isinstance(t, torch.Tensor)}
        result = (loss, _clones(traced.parameters),
                  _clones(named[n] for n in traced.state_names),
                  [[optimizer.state[p][name].clone()
                    for i, p in enumerate(traced.parameters)
                    if traced.optimizer.has_state(i, name)] for name in names])
        window = counter.window()  # Before the state the step made is dropped.
    return result, _steady_peak(window, created)


def _steady_peak(window, created):
    """The peak of live bytes over a counted step's requests (the arena's window),
    leaving out the optimizer state the step created (`created`: data addresses),
    which every later step finds already there: what a step of a training loop
    allocates above its state."""
    events = []
    for index, (size, address, freed_at, _) in enumerate(window):
        if size == 0 or (freed_at < 0 and address in created):
            continue
        events.append((index, 1, size))
        if freed_at >= 0:  # Freed before request `freed_at` was made.
            events.append((freed_at, 0, -size))
    live = peak = 0
    for _, _, change in sorted(events):
        live += change
        peak = max(peak, live)
    return peak


def _compared(traced, eager, result):
    """(description, eager tensor, traced tensor) for everything the step produces."""
    loss, parameters, module_state, optimizer_state = eager
    traced_parameters, traced_module_state, traced_optimizer_state = result[1:]
    pairs = [("the loss", loss, result[0])]
    pairs += [(f"parameter '{n}'", e, t) for n, e, t in
              zip(traced.parameter_names, parameters, traced_parameters)]
    pairs += [(f"{'buffer' if n in traced.buffer_names else 'parameter'} '{n}'", e, t)
              for n, e, t in zip(traced.state_names, module_state, traced_module_state)]
    for name, eager_list, traced_list in zip(traced.optimizer.state_names(),
                                             optimizer_state, traced_optimizer_state):
        owners = [n for i, n in enumerate(traced.parameter_names)
                  if traced.optimizer.has_state(i, name)]
        pairs += [(f"optimizer state '{name}' of '{n}'", e, t)
                  for n, e, t in zip(owners, eager_list, traced_list)]
    return pairs


def _bytes(tensor):
    """A tensor's logical value as its bytes in row-major order."""
    return tensor.detach().reshape(-1).contiguous().view(torch.uint8)


def _difference(eager, traced):
    """Why two tensors are not bitwise equal, or None when they are."""
    if eager.shape != traced.shape or eager.dtype != traced.dtype:
        return (f"shape {tuple(traced.shape)} {traced.dtype} where eager has "
                f"{tuple(eager.shape)} {eager.dtype}")
    if torch.equal(_bytes(eager), _bytes(traced)):
        return None
    if eager.is_floating_point() or eager.is_complex():
        largest = (eager.double() - traced.double()).abs().max().item()
        return f"up to {largest:.3g} apart"
    return "different values"


def _fingerprint(value):
    """A tensor's logical value as bytes (shape, dtype and contents), or None for what
    cannot be compared that way."""
    if not isinstance(value, torch.Tensor) or value.layout != torch.strided or \
            value.is_quantized:
        return None
    data = _bytes(value).numpy()
    return (tuple(value.shape), str(value.dtype),
            hashlib.blake2b(data, digest_size=16).digest())


# Ops whose output is uninitialized memory: two runs differ and both are right.
_UNINITIALIZED = frozenset({"empty", "new_empty", "empty_like", "empty_strided",
                            "new_empty_strided", "empty_permuted"})


def _initialized(op):
    return op.overloadpacket.__name__ not in _UNINITIALIZED


def _fingerprints(value):
    return [f for f in (_fingerprint(v) for v in tree_flatten(value)[0]) if f]


class _Recorder(TorchDispatchMode):
    """The fingerprint of every tensor an ATen op produces or writes in eager
    PyTorch."""

    def __init__(self):
        super().__init__()
        self.produced = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        output = func(*args, **(kwargs or {}))
        if _initialized(func):
            # What it returns and what it writes (a _foreach_mul_ returns nothing).
            written = [a for schema, a in zip(func._schema.arguments, args)
                       if schema.alias_info is not None and schema.alias_info.is_write]
            self.produced.update(_fingerprints(output) + _fingerprints(written))
        return output


def _first_divergence(graph, flat_arguments, produced):
    """Runs graph.fx in its traced order and returns the first op node with an output
    that eager PyTorch never produced (`produced`: _Recorder's), or None. The order of
    the two runs need not match: the optimizer's update, for one, is written apart."""

    def after(node, output):
        if (isinstance(node.target, torch._ops.OpOverload) and _initialized(node.target)
                and not set(_fingerprints(output)) <= produced):
            raise _Found(node)

    try:
        run_traced(graph, flat_arguments, after=after)
    except _Found as found:
        return found.node
    return None


class _Found(Exception):

    def __init__(self, node):
        super().__init__(node.name)
        self.node = node


def _describe_node(node):
    phase, module = Annotations.parse(node)
    where = f" in module '{module}'" if module else ""
    return f"{node.target} (node {node.name}{where}, {phase})"


def check_against_eager(graph, flat_arguments, traced_result, rng_state):
    """Compares the traced step's result with an eager step's; raises SelfCheckError.

    flat_arguments: the step's arguments before the traced run (make_fx's flattening
    of TrainingStep.example_arguments(); not modified here); traced_result: (loss,
    parameters, module state, optimizer state) after the traced run on copies of them;
    rng_state: the CPU generator's state the traced run started from. Returns a
    SelfCheck."""
    traced = graph.step
    torch.set_rng_state(rng_state)
    eager, eager_peak = _eager_step(traced)
    pairs = _compared(traced, eager, traced_result)
    for what, expected, got in pairs:
        difference = _difference(expected, got)
        if difference is None:
            continue
        torch.set_rng_state(rng_state)
        recorder = _Recorder()
        _eager_step(traced, record=recorder)
        torch.set_rng_state(rng_state)
        node = _first_divergence(graph, _clones(flat_arguments), recorder.produced)
        first = (f"; the first traced op with an output eager PyTorch never produced: "
                 f"{_describe_node(node)}" if node is not None else
                 "; every traced op's output is one eager PyTorch produced too")
        raise SelfCheckError(
            f"self-check: the traced step does not compute what eager PyTorch computes: "
            f"after one step {what} is {difference}{first}. olla refuses to run a step "
            f"that would train another model (docs/torch.md, 'The self-check')")
    return SelfCheck(len(pairs), eager_peak)


def run_and_check(graph, run, check=True):
    """Runs the traced step once on copies of its arguments (the state the capture
    made; the graph holds a first step's scalars), by run(copies) -> its output, then
    with `check` compares the result with an eager step's (check_against_eager). The
    CPU generator is left as it was. Returns the SelfCheck, or None unchecked."""
    flat, spec = tree_flatten(graph.step.example_arguments())
    copies = _clones(flat)
    generator = torch.get_rng_state()
    try:
        output = run(copies)
        if not check:
            return None
        updated = tree_unflatten(copies, spec)
        del copies
        result = (flat_tensors(output)[0],) + tuple(updated[:3])
        del output, updated
        return check_against_eager(graph, flat, result, generator)
    finally:
        torch.set_rng_state(generator)


def check_captured(graph):
    """The self-check of a graph olla.capture made in train mode, outside olla.torch
    (the traced step run in its own order). Returns a SelfCheck; raises
    SelfCheckError."""
    return run_and_check(graph, lambda copies: run_traced(graph, copies))
