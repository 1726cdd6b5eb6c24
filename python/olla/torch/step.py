"""olla.torch.optimize: the user's model and optimizer, one training step captured,
planned by olla, and run in olla's order inside the planned arena (docs/torch.md)."""

import time
import warnings

import torch

from .. import planning
from ..capture.step import (OFFSET_OPS, apply_scalars, at_offset_zero,
                            capture_training_step)
from ..capture.loop import Loop, model_device
from ..capture.storage import CaptureError
from . import arena as arenas
from .self_check import run_and_check
from .costs import measure_costs
from .executor import PlanExecutor, calibrate, flat_tensors, run_traced
from .replay import CudaGraphReplay


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
    of the last step run op by op), .replay (with cuda_graph=True: the CudaGraphReplay,
    whose captures and replays count what it did).
    """

    def __init__(self, model, example_inputs, loss_fn, optimizer, targets, example_kwargs,
                 options, copy_elimination=True, self_check=True, loop=None,
                 measured_costs=False, cuda_graph=False):
        if not isinstance(model, torch.nn.Module):
            raise ValueError(f"model: expected a torch.nn.Module, got {type(model).__name__}")
        if not isinstance(optimizer, torch.optim.Optimizer):
            raise ValueError(f"optimizer: expected a torch.optim optimizer, got "
                             f"{type(optimizer).__name__}")
        if not callable(loss_fn):
            raise ValueError("loss_fn: expected a callable (output, *targets) -> loss")
        _check_one_process(model)
        device = model_device(model)
        arenas.check_device(device)
        if cuda_graph and device.type != "cuda":
            raise ValueError(f"cuda_graph=True: the model is on {device}; "
                             f"CUDA graphs replay steps on a CUDA device")
        self.replay = CudaGraphReplay() if cuda_graph else None
        self.model = model
        self.optimizer = optimizer
        self.loop = loop or Loop()
        _check_no_autocast("olla.torch.optimize")
        inputs = _tensors("example_inputs", example_inputs)
        kwargs = _keyword_tensors(example_kwargs)
        targets = _tensors("targets", targets)
        self.loop.micro_batches(inputs, kwargs, targets)  # Raises for a ragged split.
        started = time.perf_counter()
        try:
            self.graph = capture_training_step(
                model, inputs, loss_fn, targets, optimizer=optimizer, mode="train",
                name=type(model).__name__, example_kwargs=kwargs, keep_random_order=True,
                copy_elimination=copy_elimination, loop=loop)
        except CaptureError as error:
            raise ValueError(f"olla cannot capture this model's step: {error} (see "
                             f"docs/torch.md, 'What it cannot do')") from None
        self.traced = self.graph.step
        self.device = self.traced.device
        # Where each parameter and piece of module state lives, looked up once: a
        # walk over the modules at every step costs small models a tenth of a step.
        self.parameter_slots = [(name, *_slot(model, name))
                                for name, _ in model.named_parameters()]
        self.state_slots = []  # (the module's _buffers or _parameters, attribute)
        for name in self.traced.state_names:
            module, attribute = _slot(model, name)
            kind = "_buffers" if name in self.traced.buffer_names else "_parameters"
            self.state_slots.append((getattr(module, kind), attribute))
        self.traced_ids = {id(p) for p in self.traced.parameters}
        self._check_trainable()
        self.timings = {"capture": time.perf_counter() - started}
        self.profiles, self.self_check = self._calibrate(self_check, measured_costs)
        started = time.perf_counter()
        plan = planning.optimize_graph(self.graph, **options)
        self.timings["plan"] = time.perf_counter() - started
        self.use_plan(plan)
        traced = self.traced
        self.signature = [(t.shape, t.dtype, t.stride()) for t in
                          traced.inputs + list(traced.kwargs.values()) + traced.targets]
        # Whether an input's storage offset can change what the step computes.
        self.reads_offsets = any(node.target in OFFSET_OPS for node in
                                 self.graph.fx.graph.nodes)
        self.input_names = ([f"inputs[{i}]" for i in range(len(inputs))]
                            + [f"keyword input '{k}'" for k in kwargs]
                            + [f"targets[{i}]" for i in range(len(targets))])
        self.kwarg_names = list(kwargs)
        self.counts = (len(inputs), len(targets))
        self.last_stats = None

    def use_plan(self, plan):
        """Runs `plan`, another plan of this step's graph (olla.tradeoff_graph's), from
        the next step on, in a new arena."""
        self.plan, self.report = plan, plan.report
        self.executor = PlanExecutor(self.graph, plan, self.profiles)
        self.arena = None  # Allocated at the first step, then reused by every step.

    def _calibrate(self, check, measured_costs):
        """One run of the traced step on copies of its arguments, to learn each op's
        allocations (executor.calibrate); every op's scratch becomes its workspace in
        the graph, so the plan places it. Costs one step's compute and, while it runs,
        a copy of the state the step updates. With `check`, the run's result is then
        compared with an eager step's (self_check.py), which costs an eager step and
        another copy. With `measured_costs`, every op is then timed (costs.py: four more
        runs of the traced step, on another copy). Returns (profiles, the
        self_check.SelfCheck or None)."""
        profiles = {}

        def run(copies):
            if self.device.type == "cuda":
                # A first run makes what CUDA libraries keep for the process (cuBLAS's
                # workspace per stream, cuDNN's chosen algorithms): calibration then sees
                # each op's requests as every later step makes them.
                flat = torch.utils._pytree.tree_flatten(copies)[0]
                run_traced(self.graph, [t.clone() if isinstance(t, torch.Tensor) else t
                                        for t in flat])
            started = time.perf_counter()
            found, output = calibrate(self.graph, copies)
            profiles.update(found)
            self.timings["calibrate"] = time.perf_counter() - started
            return output

        started = time.perf_counter()
        checked = run_and_check(self.graph, run, check)
        if check:
            self.timings["self_check"] = (time.perf_counter() - started
                                          - self.timings["calibrate"])
        if measured_costs:
            self.timings["costs"] = measure_costs(self.graph)
        # The zero optimizer state the capture made is not needed again: the steps use
        # the optimizer's own.
        self.traced.optimizer_state = None
        for op, profile in profiles.items():
            self.graph.ops[op].workspace = profile.workspace()
        return profiles, checked

    def predicted_saving(self):
        """1 - the plan's arena / eager PyTorch's peak: the eager step's peak as the
        self-check measured it (kernels' scratch and all), else the graph's model of
        it (the report's eager_peak_live_bytes)."""
        eager = (self.self_check.eager_peak_bytes if self.self_check
                 else self.report["eager_peak_live_bytes"])
        return 1 - self.plan.arena_bytes / eager

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
        for name, tensor, (shape, dtype, stride) in zip(self.input_names, given,
                                                         self.signature):
            if not isinstance(tensor, torch.Tensor):
                raise ValueError(f"{name}: expected a tensor, got {type(tensor).__name__}")
            if tensor.shape != shape or tensor.dtype != dtype:
                raise ValueError(
                    f"{name}: shape {_describe(tensor)} differs from the captured "
                    f"{tuple(shape)} {str(dtype).replace('torch.', '')}; plans are per "
                    f"shape: call olla.torch.optimize again with inputs of this shape")
            if tensor.device != self.device:
                raise ValueError(f"{name}: on {tensor.device}; the step was captured on "
                                 f"{self.device}")
            if tensor.stride() != stride:
                raise ValueError(
                    f"{name}: strides {tensor.stride()} differ from the captured "
                    f"{stride} (another memory format or a permuted view); the step "
                    f"was traced for the example's layout: pass the batch in that "
                    f"layout (.contiguous() or .to(memory_format=...)) or call "
                    f"olla.torch.optimize again with an example of this layout")

    def _in_traced_layout(self, tensor):
        """An input as the step was traced for it: at storage offset 0 where the graph
        reads offsets (capture.step.OFFSET_OPS)."""
        return at_offset_zero(tensor) if self.reads_offsets else tensor

    def _check_trainable(self):
        """The parameters the step trains are those it was traced with: a parameter
        unfrozen or frozen since, or one added to the optimizer, would be silently left
        out of (or kept in) the update."""
        traced = self.traced_ids
        for name, module, attribute in self.parameter_slots:
            p = module._parameters[attribute]
            if p.requires_grad != (id(p) in traced):
                now = "requires" if p.requires_grad else "does not require"
                raise ValueError(
                    f"model: parameter '{name}' {now} grad now, unlike when "
                    f"olla.torch.optimize traced the step; call olla.torch.optimize "
                    f"again")
        for index, group in enumerate(self.optimizer.param_groups):
            for p in group["params"]:
                if p.requires_grad and id(p) not in traced:
                    raise ValueError(
                        f"optimizer: param_groups[{index}] holds a parameter the step "
                        f"was not traced with (added since, as by add_param_group); "
                        f"call olla.torch.optimize again")

    def _optimizer_state(self):
        """The user's optimizer state, readied for this step as torch.optim's step
        would (optimizers.Optimizer.begin_step): (the state lists the traced update
        reads, the slots' values)."""
        traced = self.traced.optimizer
        traced.check_unchanged()
        return traced.begin_step(self.optimizer.state)

    def _module_state(self):
        """The model's current buffers and frozen parameters (a module may have replaced
        a buffer object since the capture)."""
        return [tensors[attribute] for tensors, attribute in self.state_slots]

    def __call__(self, *inputs, targets=(), **kwargs):
        inputs = list(inputs)
        targets = list(targets) if isinstance(targets, (list, tuple)) else [targets]
        self._check_inputs(inputs, kwargs, targets)
        self._check_trainable()
        _check_no_autocast("the step")
        state, scalars = self._optimizer_state()
        apply_scalars(self.graph.scalar_slots, scalars)
        layout = self._in_traced_layout
        arguments = (self.traced.parameters, self._module_state(), state,
                     [layout(t) for t in inputs],
                     {k: layout(kwargs[k]) for k in self.traced.kwargs},
                     [layout(t) for t in targets])
        flat = torch.utils._pytree.tree_flatten(arguments)[0]
        if self.arena is None:
            self.arena = self.executor.new_arena()
        if self.replay is None:
            loss, _ = self._run_planned(flat)
        else:
            loss = self.replay.step(flat, len(inputs) + len(kwargs) + len(targets), scalars,
                                    self._run_planned, self.executor, self.arena)
        # The loss lives in the arena, which the next step reuses: copy it out.
        result = loss.detach().clone()
        del loss
        # Learning-rate schedulers count the optimizer's steps and check that it ran
        # before them (torch.optim's own step() does both through the scheduler's
        # wrapper of it).
        if hasattr(self.optimizer, "_step_count"):
            self.optimizer._step_count += 1
            self.optimizer._opt_called = True
        return result

    step = __call__

    def _run_planned(self, flat):
        """One step op by op in the arena: (the loss, in the arena; whether anything fell
        through the plan)."""
        arena = self.arena
        arena.reset_stats()
        with arenas.installed(arena):
            (loss,) = flat_tensors(self.executor.run(flat, arena))
        self.last_stats = arenas.ArenaStats(arena.stats())
        return loss, self.last_stats.fell_through == 0


def _slot(model, name):
    """(module, attribute) holding the tensor `name` of `model`."""
    path, _, attribute = name.rpartition(".")
    return model.get_submodule(path), attribute


def _check_one_process(model):
    """A model wrapped for data-parallel training runs collectives inside its forward
    and backward passes (gradient all-reduce, parameter all-gather), on other streams
    than the step's, which olla neither traces nor plans."""
    wrappers = {"DistributedDataParallel", "FullyShardedDataParallel", "FSDPModule"}
    for cls in type(model).__mro__:
        if cls.__name__ in wrappers:
            raise ValueError(
                f"model: a {cls.__name__}; olla plans one process's step on one device "
                f"and one stream, and collectives (DDP, FSDP) are out of scope in this "
                f"version: pass the module inside it")


def _check_no_autocast(what):
    """An autocast region around the step is refused: one region over several eager
    steps reuses its first casts of the weights (autocast's cache), which no traced
    step can follow; autocast=dtype puts it around the forward pass, as PyTorch
    advises."""
    if torch.is_autocast_enabled("cpu") or torch.is_autocast_enabled("cuda"):
        raise ValueError(
            f"autocast: {what} runs inside torch.autocast; pass autocast=torch.bfloat16 "
            f"(or float16) to olla.torch.optimize instead, which puts autocast around "
            f"the forward pass and the loss, and call optimize and the step outside "
            f"autocast")


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


def optimize(model, example_inputs, loss_fn, optimizer, targets=(), time_limit=10.0,
             memory_budget=None, example_kwargs=None, alignment=None,
             copy_elimination=True, self_check=True, accumulate=1, autocast=None,
             before_update=None, costs="estimated", cuda_graph=False, **options):
    """Captures one training step of `model` (forward on example_inputs and
    example_kwargs, loss_fn(output, *targets), backward, `optimizer`'s update), plans
    it with olla (the options of olla.optimize_graph: time_limit, memory_budget,
    work_limit, alignment, ...) and returns an OllaStep that runs it, on the device the
    model and inputs are on (the CPU, or one CUDA device: docs/gpu.md); olla.NoPlanError
    when no plan fits memory_budget.
    alignment: of every planned offset; by default what PyTorch's allocator aligns to on
    the model's device (64 bytes on the CPU, 512 on CUDA).
    copy_elimination: the exact rewrites of olla.capture.rewrites (copies autograd
    makes that the step need not: an in-place ReLU6's saved input), which change no
    value; False keeps the step as PyTorch traces it.
    self_check: compare the traced step with an eager step before planning and raise
    SelfCheckError (a ValueError) where they differ (self_check.py); False skips it,
    with a warning, for a step too large to run eagerly.
    costs: what budget mode minimises when it recomputes: "estimated" from shapes
    (deterministic), or "measured", every op timed on this machine (costs.py; four
    more runs of the traced step; a plan may then differ from one call to the next).
    accumulate, autocast, before_update: the training loop around the update
    (olla.capture.loop.Loop: micro-batches, autocast around the forward pass, code
    between backward and the update such as gradient clipping).
    cuda_graph: on a CUDA device, replay the planned step as a CUDA graph once it is
    steady (replay.py: the same state and update scalars two steps running, nothing
    outside the plan), without Python per op.
    Options and arguments are checked before anything is captured."""
    if alignment is None:
        alignment = arenas.alignment(model_device(model) if isinstance(
            model, torch.nn.Module) else "cpu")
    options = dict(options, time_limit=time_limit, alignment=alignment)
    if memory_budget is not None:
        options["memory_budget"] = memory_budget
    for name, value in (("copy_elimination", copy_elimination),
                        ("self_check", self_check), ("cuda_graph", cuda_graph)):
        if not isinstance(value, bool):
            raise ValueError(f"{name}: expected True or False, got {value!r}")
    if costs not in ("estimated", "measured"):
        raise ValueError(f"costs: expected 'estimated' or 'measured', got {costs!r}")
    loop = Loop(accumulate, autocast, before_update)
    planning.check_options(**options)
    if not self_check:
        warnings.warn("olla.torch.optimize(self_check=False): the traced step is not "
                      "compared with eager PyTorch's; olla cannot tell whether it trains "
                      "the same model", stacklevel=2)
    return OllaStep(model, example_inputs, loss_fn, optimizer, targets, example_kwargs,
                    options, copy_elimination, self_check, loop,
                    measured_costs=costs == "measured", cuda_graph=cuda_graph)


__all__ = ["OllaStep", "optimize", "flat_tensors"]
