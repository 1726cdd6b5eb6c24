"""Optimizer updates written as in-place tensor ops, so make_fx records them.

torch.optim's step reads its step counts with .item() and keeps its scalars in Python,
which a fake-mode trace cannot follow. The updates here perform the arithmetic of
torch.optim's single-tensor (for-loop) implementations in torch 2.11 -- the ones it runs
on the CPU -- op for op and with the same Python scalars, on state that already exists:
a steady-state step. The equality is bitwise and the test suite checks it for every
option; a torch whose arithmetic differs fails those tests.

Every scalar an update op takes (a learning rate, `1 - beta1`, Adam's step size) is a
*slot*: its value per parameter comes from the optimizer's param groups and step count
at run time (Optimizer.begin_step), so a learning-rate scheduler or Adam's bias correction
works on the traced graph. Tracing puts a unique sentinel float in each slot, and
find_slots locates the sentinels in the traced nodes. Options that change which ops run
(momentum or not, nesterov, amsgrad, weight decay or not and how, maximize) are the
optimizer's *structure*: a traced step is valid only while it is unchanged.
"""

import collections

import torch

from .algorithms import ALGORITHMS

OPTIMIZERS = ("sgd", "momentum", "adam")  # The names capture accepts as strings.

_NAMED = {
    "sgd": ("sgd", dict(lr=0.01, momentum=0.0, dampening=0.0, weight_decay=0.0,
                        nesterov=False, maximize=False)),
    "momentum": ("sgd", dict(lr=0.01, momentum=0.9, dampening=0.0, weight_decay=0.0,
                             nesterov=False, maximize=False)),
    "adam": ("adam", dict(lr=0.001, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                          amsgrad=False, maximize=False, decoupled_weight_decay=False)),
}
# Options of torch.optim that change the arithmetic in ways not traced here. foreach
# is allowed where the algorithm's foreach arithmetic is its for-loop's
# (Algorithm.foreach_matches; the self-check compares the two on every model).
_UNSUPPORTED = {"capturable": (False,), "differentiable": (False,)}


class OptimizerError(ValueError):
    """An optimizer or option that olla cannot trace; the message names it."""


def _supported_names():
    return ", ".join(f"torch.optim.{c.__name__}" for algorithm in ALGORITHMS.values()
                     for c in algorithm.classes)


def _algorithm_of(optimizer):
    """The algorithm tracing torch.optim object `optimizer` (its exact class)."""
    for kind, algorithm in ALGORITHMS.items():
        if type(optimizer) in algorithm.classes:
            return kind, algorithm
    raise OptimizerError(
        f"optimizer: {type(optimizer).__name__} cannot be traced by olla (supported: "
        f"{_supported_names()}, or the names {', '.join(OPTIMIZERS)})")


def _check_group(algorithm, index, group):
    for option, allowed in _UNSUPPORTED.items():
        if option in group and group[option] not in allowed:
            raise OptimizerError(f"optimizer: param_groups[{index}] option {option}="
                                 f"{group[option]!r} is not supported by olla")
    if group.get("fused") and not algorithm.fused_traced:
        raise OptimizerError(
            f"optimizer: param_groups[{index}] option fused=True is traced by olla for "
            f"torch.optim.Adam and AdamW only; pass fused=False")
    if group.get("foreach") and not algorithm.foreach_matches:
        raise OptimizerError(
            f"optimizer: param_groups[{index}] option foreach=True: torch.optim's "
            f"foreach {type(algorithm).__name__} rounds otherwise than its for-loop, "
            f"which olla traces; pass foreach=False")
    for option, value in group.items():
        if option != "params" and isinstance(value, torch.Tensor):
            raise OptimizerError(f"optimizer: param_groups[{index}] option {option} is a "
                                 f"tensor; olla traces Python numbers")
    try:
        algorithm.check(index, group)
    except ValueError as error:
        raise OptimizerError(str(error)) from None


class Optimizer:
    """One optimizer's traced update: the per-parameter state it keeps, its structure,
    the scalar slots of its ops and their values at each step (algorithms.py has the
    arithmetic of each torch.optim algorithm).

    `spec` is a torch.optim object of a class algorithms.ALGORITHMS traces, over (some
    of) `parameters`, or one of the names "sgd" (lr), "momentum" (SGD with momentum
    0.9) and "adam" (default betas).
    """

    def __init__(self, spec, parameters, lr=0.01):
        self.parameters = list(parameters)
        if isinstance(spec, str):
            if spec not in _NAMED:
                raise OptimizerError(f"unknown optimizer '{spec}' (expected one of: "
                                     f"{', '.join(OPTIMIZERS)}, or a torch.optim object)")
            self.name = spec
            self.kind, defaults = _NAMED[spec]
            self.algorithm = ALGORITHMS[self.kind]
            self.torch_optimizer = None
            self.groups = [dict(defaults, lr=lr)] * len(self.parameters)
        elif isinstance(spec, torch.optim.Optimizer):
            self.kind, self.algorithm = _algorithm_of(spec)
            self.name = type(spec).__name__.lower()
            self.torch_optimizer = spec
            self.groups = self._groups_of(spec)
        else:
            raise OptimizerError(f"optimizer: expected a torch.optim optimizer or one of "
                                 f"{', '.join(OPTIMIZERS)}, got {type(spec).__name__}")
        self.structure = [self.algorithm.structure(g) for g in self.groups]

    def _groups_of(self, optimizer):
        group_of = {}
        for index, group in enumerate(optimizer.param_groups):
            _check_group(self.algorithm, index, group)
            for p in group["params"]:
                group_of[id(p)] = index
        missing = [i for i, p in enumerate(self.parameters) if id(p) not in group_of]
        if missing:
            raise OptimizerError(
                f"optimizer: {len(missing)} trainable parameters of the model are not in "
                f"any param group (the first is parameter {missing[0]}); give the "
                f"optimizer all of model.parameters() or set requires_grad=False on "
                f"the others")
        return [optimizer.param_groups[group_of[id(p)]] for p in self.parameters]

    def check_unchanged(self):
        """Raises OptimizerError when the optimizer's structure changed since tracing."""
        if self.torch_optimizer is None:
            return
        groups = self._groups_of(self.torch_optimizer)
        if [self.algorithm.structure(g) for g in groups] != self.structure:
            raise OptimizerError(
                f"optimizer: an option that changes the update's ops "
                f"({', '.join(self.algorithm.Structure._fields)}) changed since "
                f"olla.torch.optimize traced the step; call olla.torch.optimize again")

    def eager_optimizer(self):
        """The torch.optim optimizer whose step the traced update computes: the user's
        own, or for a name, a new one of that kind and options over the parameters."""
        if self.torch_optimizer is not None:
            return self.torch_optimizer
        return self.algorithm.classes[0](self.parameters, **self.groups[0])

    def fresh_torch_state(self):
        """The state torch.optim's optimizer holds before its first step: empty, or
        what its constructor makes (Adagrad's sums, from each group's
        initial_accumulator_value)."""
        state = collections.defaultdict(dict)
        if self.algorithm.state_at_construction:
            for i, p in enumerate(self.parameters):
                self.algorithm.create(state[p], p, self.groups[i], self.structure[i])
        return state

    def state_names(self):
        """Names of the state tensors the update reads, in a fixed order (those some
        parameter keeps)."""
        return tuple(name for name in self.algorithm.state
                     if any(self.algorithm.keeps(s, name) for s in self.structure))

    def has_state(self, index, name):
        """Whether parameter `index` keeps state `name` (SGD without momentum: none)."""
        return self.algorithm.keeps(self.structure[index], name)

    def initial_state(self, parameters):
        """The state a first update reads, as torch.optim creates it (and advances it,
        for a step count the update reads): one list per state name, of the tensors
        of the parameters that keep that state (has_state), in order."""
        return [[self.algorithm.first_update_state(p, self.groups[i], name)
                 for i, p in enumerate(parameters) if self.has_state(i, name)]
                for name in self.state_names()]

    def slot_names(self):
        return self.algorithm.slots

    def sentinels(self):
        """Per parameter, a dict of unique floats to trace with, one per slot."""
        names = self.slot_names()
        # Tiny odd values that no model or optimizer uses, distinct per slot.
        return [RecordingScalars({name: -(1 + (i * len(names) + k) * 2.0**-40) * 2.0**-900
                                  for k, name in enumerate(names)})
                for i in range(len(self.parameters))]

    def scalar_values(self):
        """Per parameter, the slots' values for a first step from the state
        initial_state makes, as torch.optim computes them."""
        return [self.algorithm.scalars(g, self.algorithm.first_host(g))
                for g in self.groups]

    def begin_step(self, state):
        """Readies the user's optimizer state `state` (optimizer.state) for a step, as
        torch.optim's step would: creates what it has not created yet and advances what
        the step changes outside the update's tensors (step counts). Returns (the state
        lists the traced update reads, as initial_state lays them out; the slots'
        values per parameter)."""
        values = []
        for i, p in enumerate(self.parameters):
            own, group = state[p], self.groups[i]
            created = self.algorithm.create(own, p, group, self.structure[i])
            values.append(self.algorithm.scalars(
                group, self.algorithm.advance(own, group, created)))
        lists = [[state[p][name] for i, p in enumerate(self.parameters)
                  if self.has_state(i, name)] for name in self.state_names()]
        return lists, values

    def update(self, parameters, gradients, state, scalars):
        """Updates parameters (and state, as initial_state lays it out) in place; call
        under torch.no_grad(). scalars: per parameter, the slots' values (sentinels
        when tracing)."""
        names = self.state_names()
        pending = [iter(tensors) for tensors in state]
        for i, (p, g) in enumerate(zip(parameters, gradients)):
            own = {name: next(pending[k]) for k, name in enumerate(names)
                   if self.has_state(i, name)}
            self.algorithm.update(p, g, own, scalars[i], self.structure[i])


class RecordingScalars(dict):
    """A parameter's slots that remembers which ones the update read."""

    def __init__(self, values):
        super().__init__(values)
        self.read = set()

    def __getitem__(self, name):
        self.read.add(name)
        return super().__getitem__(name)


def find_slots(gm, sentinels):
    """Where the slots sit in the traced graph: (node, argument key, parameter index,
    slot name) for every sentinel found, the key an int for a positional argument and a
    str for a keyword. `sentinels`: the RecordingScalars the trace ran with. Raises
    OptimizerError when a slot the update read is not in the graph: its op would keep
    the sentinel as its scalar."""
    where = {}
    for index, slots in enumerate(sentinels):
        for name, value in slots.items():
            where[value] = (index, name)
    found, seen = [], set()
    for node in gm.graph.nodes:
        if node.op != "call_function":
            continue
        for key, value in list(enumerate(node.args)) + list(node.kwargs.items()):
            if isinstance(value, float) and value in where:
                found.append((node, key) + where[value])
                seen.add(where[value])
    for index, slots in enumerate(sentinels):
        for name in slots.read:
            if (index, name) not in seen:
                raise OptimizerError(f"optimizer: the traced update of parameter {index} "
                                     f"lost its scalar '{name}'")
    return found
