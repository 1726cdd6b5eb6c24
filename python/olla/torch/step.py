"""olla.torch.optimize: the user's model and optimizer, one training step captured,
planned by olla, and run in olla's order inside the planned arena (docs/torch.md)."""

import torch
from torch.optim.optimizer import _get_scalar_dtype

from .. import planning
from ..capture.step import apply_scalars, capture_training_step
from ..capture.storage import CaptureError
from . import arena as arenas
from .executor import PlanExecutor, calibrate, flat_tensors


def _describe(tensor):
    return f"{tuple(tensor.shape)} {str(tensor.dtype).replace('torch.', '')}"


class OllaStep:
    """One training step of `model` with `optimizer`, in olla's plan.

    step(*inputs, targets=(), **keyword_inputs) -> loss runs forward, backward and the
    optimizer's update in the plan's order, updating the model's parameters and buffers
    and the optimizer's state in place, in the objects the user passed: eager steps
    (loss.backward(); optimizer.step()) and olla steps can alternate. Gradients are not
    stored in `.grad` (the step frees each one after its update). The loss comes back
    detached, outside the arena.

    .plan (olla.Plan), .report (its dict), .svg(), .last_stats (the arena's ArenaStats
    of the last step).
    """

    def __init__(self, model, example_inputs, loss_fn, optimizer, targets, example_kwargs,
                 options, copy_elimination=True):
        if not isinstance(model, torch.nn.Module):
            raise ValueError(f"model: expected a torch.nn.Module, got {type(model).__name__}")
        if not isinstance(optimizer, torch.optim.Optimizer):
            raise ValueError(f"optimizer: expected a torch.optim optimizer, got "
                             f"{type(optimizer).__name__}")
        if not callable(loss_fn):
            raise ValueError("loss_fn: expected a callable (output, *targets) -> loss")
        self.model = model
        self.optimizer = optimizer
        inputs = _tensors("example_inputs", example_inputs)
        kwargs = _keyword_tensors(example_kwargs)
        targets = _tensors("targets", targets)
        try:
            self.graph = capture_training_step(
                model, inputs, loss_fn, targets, optimizer=optimizer, mode="train",
                name=type(model).__name__, example_kwargs=kwargs, keep_random_order=True,
                copy_elimination=copy_elimination)
        except CaptureError as error:
            raise ValueError(f"olla cannot capture this model's step: {error} (see "
                             f"docs/torch.md, 'What it cannot do')") from None
        self.traced = self.graph.step
        self.profiles = self._calibrate()
        self.plan = planning.optimize_graph(self.graph, **options)
        self.report = self.plan.report
        self.executor = PlanExecutor(self.graph, self.plan, self.profiles)
        self.signature = [(t.shape, t.dtype) for t in inputs + list(kwargs.values())
                          + targets]
        self.input_names = ([f"inputs[{i}]" for i in range(len(inputs))]
                            + [f"keyword input '{k}'" for k in kwargs]
                            + [f"targets[{i}]" for i in range(len(targets))])
        self.kwarg_names = list(kwargs)
        self.counts = (len(inputs), len(targets))
        self.last_stats = None
        self.arena = None  # Allocated at the first step, then reused by every step.

    def _calibrate(self):
        """One run of the traced step on copies of its arguments, to learn each op's
        allocations (executor.calibrate); every op's scratch becomes its workspace in
        the graph, so the plan places it. Costs one step's compute and, while it runs,
        a copy of the state the step updates."""
        copies = [t.detach().clone() for t in
                  torch.utils._pytree.tree_flatten(self.traced.example_arguments())[0]]
        # The zero optimizer state the capture made is not needed again: the steps use
        # the optimizer's own.
        self.traced.optimizer_state = None
        profiles = calibrate(self.graph, copies)
        del copies
        for op, profile in profiles.items():
            self.graph.ops[op].workspace = profile.workspace()
        return profiles

    def svg(self):
        """The picture of `olla optimize --svg`: eager PyTorch beside this plan."""
        return self.plan.svg()

    def _check_inputs(self, inputs, kwargs, targets):
        counts = (len(inputs), len(targets))
        if counts != self.counts:
            raise ValueError(f"inputs: the step was captured with {self.counts[0]} "
                             f"positional inputs and {self.counts[1]} targets, got "
                             f"{counts[0]} and {counts[1]}")
        if sorted(kwargs) != sorted(self.kwarg_names):
            raise ValueError(f"keyword inputs: captured with {sorted(self.kwarg_names)}, "
                             f"got {sorted(kwargs)}")
        given = list(inputs) + [kwargs[k] for k in self.kwarg_names] + list(targets)
        for name, tensor, (shape, dtype) in zip(self.input_names, given, self.signature):
            if not isinstance(tensor, torch.Tensor):
                raise ValueError(f"{name}: expected a tensor, got {type(tensor).__name__}")
            if tensor.shape != shape or tensor.dtype != dtype:
                raise ValueError(
                    f"{name}: shape {_describe(tensor)} differs from the captured "
                    f"{tuple(shape)} {str(dtype).replace('torch.', '')}; plans are per "
                    f"shape: call olla.torch.optimize again with inputs of this shape")
            if tensor.device.type != "cpu":
                raise ValueError(f"{name}: on {tensor.device}; olla's runtime runs on the "
                                 f"CPU (docs/gpu.md)")

    def _optimizer_state(self):
        """The user's optimizer state, created as torch.optim would on its first step,
        laid out as the traced update reads it. Returns (state lists, per-parameter
        Adam step counts after this step, whether SGD momentum buffers are new)."""
        traced = self.traced.optimizer
        traced.check_unchanged()
        state = self.optimizer.state
        parameters = self.traced.parameters
        fresh_momentum = False
        steps = None
        if traced.kind == "sgd":
            for i, p in enumerate(parameters):
                if traced.has_state(i, "momentum_buffer") and \
                        state[p].get("momentum_buffer") is None:
                    # torch.optim clones the first gradient; the traced update adds it to
                    # zeros with alpha 1 instead, which gives the same values.
                    state[p]["momentum_buffer"] = torch.zeros_like(
                        p, memory_format=torch.preserve_format)
                    fresh_momentum = True
        else:
            steps = []
            for i, p in enumerate(parameters):
                own = state[p]
                if "step" not in own:
                    # As torch.optim's Adam makes it.
                    own["step"] = torch.tensor(0.0, dtype=_get_scalar_dtype())
                    own["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    own["exp_avg_sq"] = torch.zeros_like(
                        p, memory_format=torch.preserve_format)
                    if traced.has_state(i, "max_exp_avg_sq"):
                        own["max_exp_avg_sq"] = torch.zeros_like(
                            p, memory_format=torch.preserve_format)
                own["step"] += 1
                steps.append(own["step"].item())
        lists = [[state[p][name] for i, p in enumerate(parameters)
                  if traced.has_state(i, name)] for name in traced.state_names()]
        return lists, steps, fresh_momentum

    def _module_state(self):
        """The model's current buffers and frozen parameters (a module may have replaced
        a buffer object since the capture)."""
        named = dict(self.model.named_parameters())
        named.update(self.model.named_buffers())
        return [named[n] for n in self.traced.state_names]

    def __call__(self, *inputs, targets=(), **kwargs):
        inputs = list(inputs)
        targets = list(targets) if isinstance(targets, (list, tuple)) else [targets]
        self._check_inputs(inputs, kwargs, targets)
        state, steps, fresh_momentum = self._optimizer_state()
        apply_scalars(self.graph.scalar_slots,
                      self.traced.optimizer.scalar_values(steps, fresh_momentum))
        arguments = (self.traced.parameters, self._module_state(), state, inputs,
                     {k: kwargs[k] for k in self.traced.kwargs}, targets)
        flat = torch.utils._pytree.tree_flatten(arguments)[0]
        if self.arena is None:
            self.arena = arenas.new_arena(self.plan.arena_bytes)
        arena = self.arena
        arena.reset_stats()
        with arenas.installed(arena):
            (loss,) = flat_tensors(self.executor.run(flat, arena))
        # The loss lives in the arena, which the next step reuses: copy it out.
        result = loss.detach().clone()
        del loss
        self.last_stats = arenas.ArenaStats(arena.stats())
        # Learning-rate schedulers count the optimizer's steps and check that it ran
        # before them (torch.optim's own step() does both through the scheduler's
        # wrapper of it).
        if hasattr(self.optimizer, "_step_count"):
            self.optimizer._step_count += 1
            self.optimizer._opt_called = True
        return result

    step = __call__


def _tensors(name, values):
    if isinstance(values, torch.Tensor):
        values = [values]
    if not isinstance(values, (list, tuple)):
        raise ValueError(f"{name}: expected a tensor or a list of tensors, got "
                         f"{type(values).__name__}")
    for i, value in enumerate(values):
        if not isinstance(value, torch.Tensor):
            raise ValueError(f"{name}[{i}]: expected a tensor, got {type(value).__name__}")
    return list(values)


def _keyword_tensors(values):
    values = dict(values or {})
    for key, value in values.items():
        if not isinstance(value, torch.Tensor):
            raise ValueError(f"example_kwargs['{key}']: expected a tensor, got "
                             f"{type(value).__name__}")
    return values


# PyTorch's CPU allocator aligns to 64 bytes and rounds nothing (the CUDA caching
# allocator's 512 bytes would only waste memory here).
CPU_ALIGNMENT = 64


def optimize(model, example_inputs, loss_fn, optimizer, targets=(), time_limit=10.0,
             memory_budget=None, example_kwargs=None, alignment=CPU_ALIGNMENT,
             copy_elimination=True, **options):
    """Captures one training step of `model` (forward on example_inputs and
    example_kwargs, loss_fn(output, *targets), backward, `optimizer`'s update), plans
    it with olla (the options of olla.optimize_graph: time_limit, memory_budget,
    work_limit, alignment, ...) and returns an OllaStep that runs it.
    copy_elimination: the exact rewrites of olla.capture.rewrites (copies autograd
    makes that the step need not: an in-place ReLU6's saved input), which change no
    value; False keeps the step as PyTorch traces it."""
    options = dict(options, time_limit=time_limit, alignment=alignment)
    if memory_budget is not None:
        options["memory_budget"] = memory_budget
    if not isinstance(copy_elimination, bool):
        raise ValueError(f"copy_elimination: expected True or False, got "
                         f"{copy_elimination!r}")
    return OllaStep(model, example_inputs, loss_fn, optimizer, targets, example_kwargs,
                    options, copy_elimination)


__all__ = ["OllaStep", "optimize", "flat_tensors"]
