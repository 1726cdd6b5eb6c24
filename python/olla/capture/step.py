"""Tracing one training step of an nn.Module into a flat ATen graph with make_fx."""

import contextlib
import os
import traceback

import torch
import torch.fx.traceback as fx_traceback
from torch._subclasses.fake_tensor import (DataDependentOutputException,
                                           DynamicOutputShapeException, FakeTensorMode)
from torch.fx.experimental.proxy_tensor import make_fx
from torch.func import functional_call
from torch.nn.utils.stateless import _reparametrize_module

from .loop import Loop
from .optimizers import Optimizer, find_slots
from .rewrites import eliminate_copies
from .storage import CaptureError, build_graph

MODES = ("train", "eval")
_PHASE = "olla.phase"
_MODULE = "olla.module"


class Annotations:
    """Tags every traced node with its phase and the module path that produced it.

    The tags go in each node's meta["custom"]: torch.fx.traceback.annotate sets them,
    and make_fx copies them into every node it creates while node metadata is
    preserved. The phase is set around each part of the step; forward hooks keep the
    innermost module's path.
    """

    def __init__(self, model):
        self.model = model

    @staticmethod
    def phase_of(phase):
        return fx_traceback.annotate({_PHASE: phase})

    @contextlib.contextmanager
    def active(self):
        entered = []  # The annotations of the modules running now, innermost last.
        handles = []
        for path, module in self.model.named_modules():
            if not path:
                continue

            def enter(module, inputs, path=path):
                annotation = fx_traceback.annotate({_MODULE: path})
                annotation.__enter__()
                entered.append(annotation)

            def leave(module, inputs, outputs):
                entered.pop().__exit__(None, None, None)

            handles.append(module.register_forward_pre_hook(enter))
            handles.append(module.register_forward_hook(leave))
        try:
            # Restores the tracer's metadata on the way out, also after a failed trace
            # that left modules entered.
            with fx_traceback.preserve_node_meta():
                yield
        finally:
            for handle in handles:
                handle.remove()

    @staticmethod
    def parse(node):
        """(phase, innermost module path) of a traced node."""
        custom = node.meta.get("custom", {})
        return custom.get(_PHASE, "forward"), custom.get(_MODULE, "")


@contextlib.contextmanager
def _model_mode(model, training):
    previous = model.training
    model.train(training)
    try:
        yield
    finally:
        model.train(previous)


def _one_device(named):
    """The device of every tensor of [(description, tensor)] (the CPU for none); a
    ValueError names the first tensor on another device than the first's."""
    if not named:
        return torch.device("cpu")
    first, device = named[0][0], named[0][1].device
    for description, tensor in named:
        if tensor.device != device:
            raise ValueError(f"{description}: on {tensor.device}, but {first} is on "
                             f"{device}; a step runs on one device")
    return device


def _named_tensors(model, trainable):
    """The model's tensors with every name they go by (a tied weight has several):
    (trainable parameters, other module state), each a list of (names, tensor), in the
    order named_parameters() and named_buffers() first meet them."""
    seen = {}  # id(tensor) -> [names, tensor, is parameter]
    order = []
    for prefix, module in model.named_modules(remove_duplicate=False):
        for attribute, tensors in (("parameter", module._parameters),
                                   ("buffer", module._buffers)):
            for name, tensor in tensors.items():
                if tensor is None:
                    continue
                full = f"{prefix}.{name}" if prefix else name
                entry = seen.get(id(tensor))
                if entry is None:
                    entry = seen[id(tensor)] = [[], tensor, attribute == "parameter"]
                    order.append(entry)
                if full not in entry[0]:
                    entry[0].append(full)
    learned = [(names, t) for names, t, is_parameter in order
               if is_parameter and t.requires_grad and trainable]
    others = [(names, t) for names, t, is_parameter in order
              if not (is_parameter and t.requires_grad and trainable)]
    return learned, others


class TrainingStep:
    """The function make_fx traces, and the real tensors it takes.

    Call it as step(*step.example_arguments()): lists of trainable parameters, other
    module state (buffers and frozen parameters), optimizer state, positional model
    inputs, keyword model inputs (a dict) and loss targets. Train mode returns the loss
    (after updating everything in place); eval mode returns the model's output.

    A tensor the model reaches by several names (a tied weight) is one argument. The
    optimizer is a name or the user's torch.optim object (optimizers.py); its scalars
    are `self.scalars`, sentinels while tracing and real values after.
    """

    def __init__(self, model, example_inputs, loss_fn=None, targets=(), optimizer="sgd",
                 lr=0.01, mode="train", example_kwargs=None, loop=None):
        if mode not in MODES:
            raise ValueError(f"unknown mode '{mode}' (expected train or eval)")
        if mode == "train" and loss_fn is None:
            raise ValueError("train mode needs a loss_fn")
        self.model = model
        self.mode = mode
        self.loss_fn = loss_fn
        self.loop = loop or Loop()
        self.inputs = [at_offset_zero(t) for t in example_inputs]
        self.kwargs = {k: at_offset_zero(t) for k, t in (example_kwargs or {}).items()}
        self.targets = [at_offset_zero(t) for t in targets] if mode == "train" else []
        learned, others = _named_tensors(model, mode == "train")
        self.parameter_aliases = [names for names, _ in learned]
        self.state_aliases = [names for names, _ in others]
        self.parameter_names = [names[0] for names in self.parameter_aliases]
        self.state_names = [names[0] for names in self.state_aliases]
        self.buffer_names = {n for n, _ in model.named_buffers()}
        self.parameters = [t for _, t in learned]
        self.module_state = [t for _, t in others]
        self.device = _one_device(
            [(f"model: parameter '{names[0]}'", t) for names, t in learned + others]
            + [(f"inputs[{i}]", t) for i, t in enumerate(self.inputs)]
            + [(f"keyword input '{k}'", t) for k, t in self.kwargs.items()]
            + [(f"targets[{i}]", t) for i, t in enumerate(self.targets)])
        self.optimizer = Optimizer(optimizer, self.parameters, lr)
        self.optimizer_state = self.optimizer.initial_state(self.parameters)
        self.scalars = self.optimizer.scalar_values()
        self.annotations = Annotations(model)

    def example_arguments(self):
        return (self.parameters, self.module_state, self.optimizer_state, self.inputs,
                self.kwargs, self.targets)

    def input_descriptions(self):
        """(name, kind) per tensor argument, in make_fx's flattening order."""
        described = [(n, "parameter") for n in self.parameter_names]
        described += [(n, "buffer" if n in self.buffer_names else "parameter")
                      for n in self.state_names]
        for name, tensors in zip(self.optimizer.state_names(), self.optimizer_state):
            described += [(f"{self.optimizer.name}.{name}:{n}", "optimizer_state")
                          for n, t in zip(self.parameter_names, tensors) if t is not None]
        described += [(f"input:{i}", "input") for i in range(len(self.inputs))]
        # make_fx flattens a dict in its key order.
        described += [(f"input:{k}", "input") for k in self.kwargs]
        described += [(f"target:{i}", "input") for i in range(len(self.targets))]
        return described

    def _state_dict(self, parameters, module_state):
        state = {}
        for names, tensor in zip(self.parameter_aliases + self.state_aliases,
                                 list(parameters) + list(module_state)):
            for name in names:
                state[name] = tensor
        return state

    def __call__(self, parameters, module_state, optimizer_state, inputs, kwargs, targets):
        state = self._state_dict(parameters, module_state)
        annotate = self.annotations
        if self.mode == "eval":
            with _model_mode(self.model, False), annotate.phase_of("forward"), \
                    torch.no_grad():
                return functional_call(self.model, state, tuple(inputs), kwargs)
        loop = self.loop
        total, gradients = None, None
        for micro_inputs, micro_kwargs, micro_targets in loop.micro_batches(
                inputs, kwargs, targets):
            with _model_mode(self.model, True), annotate.phase_of("forward"), \
                    loop.autocast_context(self.device):
                output = functional_call(self.model, state, tuple(micro_inputs),
                                         micro_kwargs)
                loss = _checked_loss(self.loss_fn(output, *micro_targets))
            with annotate.phase_of("backward"):
                more = torch.autograd.grad(loss, parameters)
                with torch.no_grad():
                    # As loss.backward() accumulates into .grad.
                    gradients = more if gradients is None else [
                        g.add_(m) for g, m in zip(gradients, more)]
                    total = loss if total is None else total + loss
        if loop.before_update is not None:
            with annotate.phase_of("optimizer"):
                gradients = self._before_update(parameters, gradients, state)
        with annotate.phase_of("optimizer"), torch.no_grad():
            self.optimizer.update(parameters, gradients, optimizer_state, self.scalars)
        return total

    def _before_update(self, parameters, gradients, state):
        """Runs the loop's before_update with the traced parameters, their gradients
        in .grad, where user code reaches parameters: the model's (reparametrized as in
        the forward pass) and the optimizer's param groups. Returns the gradients after
        it (the code may replace a .grad)."""
        for p, g in zip(parameters, gradients):
            p.grad = g
        groups = self.optimizer.torch_optimizer.param_groups \
            if self.optimizer.torch_optimizer is not None else []
        traced = {id(real): p for real, p in zip(self.parameters, parameters)}
        originals = [group["params"] for group in groups]
        try:
            for group in groups:
                group["params"] = [traced.get(id(p), p) for p in group["params"]]
            with _reparametrize_module(self.model, state):
                self.loop.before_update()
        finally:
            for group, params in zip(groups, originals):
                group["params"] = params
        updated = []
        for index, p in enumerate(parameters):
            if p.grad is None:
                raise CaptureError(f"before_update set the gradient of parameter "
                                   f"'{self.parameter_names[index]}' to None")
            updated.append(p.grad)
            p.grad = None
        return updated


# The ops that take a storage offset, which is absolute: the only ones whose result
# depends on where in its storage an input tensor starts.
OFFSET_OPS = frozenset({torch.ops.aten.as_strided.default, torch.ops.aten.as_strided_.default,
                        torch.ops.aten.as_strided_scatter.default})


def at_offset_zero(tensor):
    """`tensor`, or a copy with the same strides at the start of its own storage: the
    step is traced for inputs at offset 0, so that a batch sliced from a larger tensor
    elsewhere (OFFSET_OPS) reads right. A tensor whose elements overlap stays as is."""
    if not isinstance(tensor, torch.Tensor) or tensor.storage_offset() == 0 or \
            torch._debug_has_internal_overlap(tensor) != 0:
        return tensor
    copy = torch.empty_strided(tensor.shape, tensor.stride(), dtype=tensor.dtype,
                               device=tensor.device)
    return copy.copy_(tensor.detach()).requires_grad_(tensor.requires_grad)


def _checked_loss(loss):
    """loss_fn's value, which must be what loss.backward() takes: a one-element
    floating-point tensor."""
    if not isinstance(loss, torch.Tensor):
        raise CaptureError(f"loss_fn returned a {type(loss).__name__}; expected the loss "
                           f"as a one-element floating-point tensor")
    if loss.numel() != 1 or not loss.is_floating_point():
        raise CaptureError(f"loss_fn returned a tensor of shape {tuple(loss.shape)} "
                           f"{str(loss.dtype).replace('torch.', '')}; expected the loss "
                           f"as a one-element floating-point tensor")
    return loss


def _module_of_input(name):
    """The module path of a step input named by input_descriptions(), or ""."""
    if ":" in name:  # Optimizer state: "adam.exp_avg:layer1.0.conv1.weight".
        name = name.split(":", 1)[1]
    if name.startswith(("input:", "target:")) or "." not in name:
        return ""
    return name.rsplit(".", 1)[0]


def _attribute_modules(gm, annotations, inputs):
    """Names the module of every backward and optimizer node, which the forward hooks
    cannot see. A node belongs to the module of a parameter (or its optimizer state)
    that it reads; else to the module of the latest forward node it reads (a backward
    op reads what its forward op saved: threshold_backward the ReLU's output); else to
    the module of a backward or optimizer node it reads; else to the module of the node
    before it. Returns the annotations with those modules filled in."""
    result = dict(annotations)
    placeholder_module = {}
    descriptions = iter(inputs)
    position = {}
    for index, node in enumerate(gm.graph.nodes):
        position[node] = index
        if node.op == "placeholder":
            placeholder_module[node] = _module_of_input(next(descriptions)[0])
    def origin(node):
        # Autograd detaches what it saved before the backward reads it: look through.
        while (node.op == "call_function" and result[node][0] != "forward"
               and node.target is torch.ops.aten.detach.default
               and len(node.all_input_nodes) == 1):
            node = node.all_input_nodes[0]
        return node

    previous = ""
    for node in gm.graph.nodes:
        phase, module = result[node]
        if node.op != "call_function" or phase == "forward" or module:
            continue
        sources = [origin(n) for n in node.all_input_nodes]
        from_parameter = [placeholder_module[n] for n in sources
                          if placeholder_module.get(n)]
        forward = sorted((position[n], result[n][1]) for n in sources
                         if n.op == "call_function" and result[n][0] == "forward"
                         and result[n][1])
        later = [result[n][1] for n in sources
                 if n.op == "call_function" and result[n][0] != "forward" and result[n][1]]
        if from_parameter:
            module = from_parameter[0]
        elif forward:
            module = forward[-1][1]
        elif later:
            module = later[0]
        else:
            module = previous
        result[node] = (phase, module)
        previous = module or previous
    return result


def _fake_values(gm, arguments):
    """Runs the traced graph on fake tensors: the value (shape, dtype) of every node."""
    values = {}

    class Recorder(torch.fx.Interpreter):

        def run_node(self, node):
            result = super().run_node(node)
            values[node] = result
            return result

    with torch.no_grad(), FakeTensorMode() as mode:
        flat = [mode.from_tensor(t) if isinstance(t, torch.Tensor) else t
                for t in torch.utils._pytree.tree_flatten(arguments)[0]]
        Recorder(gm, garbage_collect_values=False).run(*flat)
    return values


def apply_scalars(slots, values):
    """Writes the optimizer's scalars for the coming step into the traced nodes.
    slots: find_slots's list; values: Optimizer.scalar_values's."""
    for node, key, index, name in slots:
        value = values[index][name]
        if isinstance(key, int):
            if node.args[key] != value:  # fx's setter is slow; most slots keep theirs.
                args = list(node.args)
                args[key] = value
                node.args = tuple(args)
        elif node.kwargs[key] != value:
            node.kwargs = {**node.kwargs, key: value}


def _user_frame(error):
    """"file:line in function" of the innermost traceback frame outside torch and olla:
    where in the user's model the trace failed, or ""."""
    skip = (os.path.dirname(torch.__file__), os.path.dirname(os.path.dirname(__file__)))
    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if not f.filename.startswith(skip)]
    if not frames:
        return ""
    frame = frames[-1]
    return f" at {frame.filename}:{frame.lineno} in {frame.name}"


def _explain(error):
    """The trace failure in words a user can act on."""
    text = str(error).splitlines()[0] if str(error) else ""
    if isinstance(error, DataDependentOutputException):
        return ("a Python value is read from a tensor (data-dependent control flow, "
                ".item(), bool() or int() of a tensor); olla plans one fixed graph: "
                "compute it with tensor ops (torch.where) or outside the model")
    if isinstance(error, DynamicOutputShapeException):
        return (f"{text} has an output shape that depends on the data (a boolean mask, "
                f"nonzero); use fixed-shape ops (torch.where, masked_fill)")
    return f"{type(error).__name__}: {text}"


def trace(step):
    """make_fx over the step in fake mode: no real memory, a second or so per model.
    Returns the GraphModule, with the optimizer's scalars of a first step in place, and
    the scalar slots (apply_scalars)."""
    # Fake copies of the arguments from a fake mode without a shape environment, which
    # make_fx then traces in: a value read from a tensor (.item(), bool()) or a shape
    # that depends on the data raises at once, where make_fx's own mode would trace it
    # as a symbol that nothing after the trace could size.
    mode = FakeTensorMode(allow_fallback_kernels=True)
    arguments = torch.utils._pytree.tree_map(
        lambda t: mode.from_tensor(t) if isinstance(t, torch.Tensor) else t,
        step.example_arguments())
    real_scalars = step.scalars
    step.scalars = step.optimizer.sentinels()
    with step.annotations.active():
        try:
            gm = make_fx(step, tracing_mode="fake")(*arguments)
        except CaptureError:
            raise
        except Exception as error:  # torch raises many types; name the stage
            raise CaptureError(f"tracing failed{_user_frame(error)}: "
                               f"{_explain(error)}") from error
        finally:
            sentinels, step.scalars = step.scalars, real_scalars
    slots = find_slots(gm, sentinels) if step.mode == "train" else []
    apply_scalars(slots, real_scalars)
    gm.recompile()
    return gm, slots


def capture_training_step(model, example_inputs, loss_fn=None, targets=(), optimizer="sgd",
                          lr=0.01, mode="train", name=None, metadata=None,
                          example_kwargs=None, keep_random_order=False,
                          copy_elimination=False, loop=None):
    """Captures one step of `model` as an olla Graph.

    Train mode: forward pass on `example_inputs`, `loss_fn(output, *targets)`, the
    backward pass (torch.autograd.grad) and an in-place `optimizer` update ("sgd",
    "momentum" or "adam"). Eval mode: the forward pass under no_grad, model.eval().
    Parameters, module buffers, optimizer state, inputs and targets are persistent.
    `optimizer` may also be the user's torch.optim.SGD, Adam or AdamW (its param groups'
    options and scalars: optimizers.py); example_kwargs are keyword tensor inputs;
    keep_random_order chains the random ops (dropout) in their traced order;
    copy_elimination applies the exact rewrites of rewrites.py (the graph's metadata
    "rewrites" says which applied, how often); loop: a loop.Loop (micro-batches,
    autocast, code before the update), train mode only.
    """
    step = TrainingStep(model, example_inputs, loss_fn, targets, optimizer, lr, mode,
                        example_kwargs, loop)
    gm, slots = trace(step)
    applied = eliminate_copies(gm) if copy_elimination else {}
    values = _fake_values(gm, step.example_arguments())
    annotations = _attribute_modules(
        gm, {node: Annotations.parse(node) for node in gm.graph.nodes},
        step.input_descriptions())
    info = {"mode": mode, "torch": torch.__version__}
    if copy_elimination:
        info["rewrites"] = applied
    if mode == "train":
        info["optimizer"] = step.optimizer.name
        if step.loop != Loop():
            info["loop"] = step.loop.description()
    info.update(metadata or {})
    graph = build_graph(gm, values, annotations, step.input_descriptions(),
                        name or type(model).__name__, info, keep_random_order, step.device)
    graph.step = step
    graph.scalar_slots = slots
    return graph
