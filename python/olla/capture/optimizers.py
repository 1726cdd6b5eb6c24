"""Optimizer updates written as in-place tensor ops, so make_fx records them.

torch.optim's step reads its step counts with .item() and keeps its scalars in Python,
which a fake-mode trace cannot follow. The updates here perform the arithmetic of
torch.optim's single-tensor (for-loop) implementations in torch 2.11 -- the ones it runs
on the CPU -- op for op and with the same Python scalars, on state that already exists:
a steady-state step. The equality is bitwise and the test suite checks it for every
option; a torch whose arithmetic differs fails those tests.

Every scalar an update op takes (a learning rate, `1 - beta1`, Adam's step size) is a
*slot*: its value per parameter comes from the optimizer's param groups and step count
at run time (scalar_values), so a learning-rate scheduler or Adam's bias correction
works on the traced graph. Tracing puts a unique sentinel float in each slot, and
find_slots locates the sentinels in the traced nodes. Options that change which ops run
(momentum or not, nesterov, amsgrad, weight decay or not and how, maximize) are the
optimizer's *structure*: a traced step is valid only while it is unchanged.
"""

import collections

import torch

OPTIMIZERS = ("sgd", "momentum", "adam")  # The names capture accepts as strings.

_SGD_DEFAULTS = dict(lr=0.01, momentum=0.0, dampening=0.0, weight_decay=0.0,
                     nesterov=False, maximize=False)
_ADAM_DEFAULTS = dict(lr=0.001, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                      amsgrad=False, maximize=False, decoupled_weight_decay=False)
# Options of torch.optim that change the arithmetic in ways not traced here.
_UNSUPPORTED = {"foreach": (None, False), "capturable": (False,),
                "differentiable": (False,), "fused": (None, False)}


# The options of a parameter's group that decide which ops its update runs.
_SgdStructure = collections.namedtuple("_SgdStructure",
                                       "weight_decay momentum nesterov maximize")
_AdamStructure = collections.namedtuple("_AdamStructure",
                                        "weight_decay decoupled amsgrad maximize")


class OptimizerError(ValueError):
    """An optimizer or option that olla cannot trace; the message names it."""


def _name_of(optimizer):
    """"sgd", "adam" or "adamw" (AdamW is Adam with decoupled weight decay, which each
    param group states as its decoupled_weight_decay)."""
    if type(optimizer) is torch.optim.SGD:
        return "sgd"
    if type(optimizer) is torch.optim.AdamW:
        return "adamw"
    if type(optimizer) is torch.optim.Adam:
        return "adam"
    raise OptimizerError(
        f"optimizer: {type(optimizer).__name__} cannot be traced by olla (supported: "
        f"torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW, or the names "
        f"{', '.join(OPTIMIZERS)})")


def _check_group(kind, index, group):
    for option, allowed in _UNSUPPORTED.items():
        if option in group and group[option] not in allowed:
            raise OptimizerError(f"optimizer: param_groups[{index}] option {option}="
                                 f"{group[option]!r} is not supported by olla")
    if kind == "sgd":
        if group["nesterov"] and (group["momentum"] <= 0 or group["dampening"] != 0):
            raise OptimizerError(f"optimizer: param_groups[{index}]: nesterov needs "
                                 f"momentum and zero dampening")


class Optimizer:
    """One optimizer's traced update: the per-parameter state it keeps, its structure,
    the scalar slots of its ops and their values at each step.

    `spec` is a torch.optim.SGD/Adam/AdamW over (some of) `parameters`, or one of the
    names "sgd" (lr), "momentum" (SGD with momentum 0.9) and "adam" (default betas).
    """

    def __init__(self, spec, parameters, lr=0.01):
        self.parameters = list(parameters)
        if isinstance(spec, str):
            if spec not in OPTIMIZERS:
                raise OptimizerError(f"unknown optimizer '{spec}' (expected one of: "
                                     f"{', '.join(OPTIMIZERS)}, or a torch.optim object)")
            self.name = spec
            self.kind = "adam" if spec == "adam" else "sgd"
            defaults = dict(_ADAM_DEFAULTS if self.kind == "adam" else _SGD_DEFAULTS)
            defaults["lr"] = lr
            if spec == "momentum":
                defaults["momentum"] = 0.9
            self.torch_optimizer = None
            self.groups = [defaults] * len(self.parameters)
        elif isinstance(spec, torch.optim.Optimizer):
            self.name = _name_of(spec)
            self.kind = "sgd" if self.name == "sgd" else "adam"
            self.torch_optimizer = spec
            self.groups = self._groups_of(spec)
        else:
            raise OptimizerError(f"optimizer: expected a torch.optim optimizer or one of "
                                 f"{', '.join(OPTIMIZERS)}, got {type(spec).__name__}")
        self.structure = self._structure(self.groups)

    def _groups_of(self, optimizer):
        group_of = {}
        for index, group in enumerate(optimizer.param_groups):
            _check_group(self.kind, index, group)
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

    def _structure(self, groups):
        """Per parameter (its group in `groups`), the options that decide which ops its
        update runs."""
        if self.kind == "sgd":
            return [_SgdStructure(g["weight_decay"] != 0, g["momentum"] != 0,
                                  bool(g["nesterov"]), bool(g["maximize"]))
                    for g in groups]
        return [_AdamStructure(g["weight_decay"] != 0,
                               bool(g.get("decoupled_weight_decay", False)),
                               bool(g["amsgrad"]), bool(g["maximize"])) for g in groups]

    def check_unchanged(self):
        """Raises OptimizerError when the optimizer's structure changed since tracing."""
        if self.torch_optimizer is None:
            return
        now = self._structure(self._groups_of(self.torch_optimizer))
        if now != self.structure:
            raise OptimizerError(
                "optimizer: an option that changes the update's ops (momentum, "
                "nesterov, weight_decay, decoupled_weight_decay, amsgrad or maximize) "
                "changed since "
                "olla.torch.optimize traced the step; call olla.torch.optimize again")

    def eager_optimizer(self):
        """The torch.optim optimizer whose step the traced update computes: the user's
        own, or for a name, a new one of that kind and options over the parameters."""
        if self.torch_optimizer is not None:
            return self.torch_optimizer
        kind = torch.optim.Adam if self.kind == "adam" else torch.optim.SGD
        return kind(self.parameters, **self.groups[0])

    def state_names(self):
        """Names of the state tensors kept per parameter, in a fixed order."""
        if self.kind == "sgd":
            return ("momentum_buffer",) if any(s.momentum for s in self.structure) else ()
        return ("exp_avg", "exp_avg_sq") + (
            ("max_exp_avg_sq",) if any(s.amsgrad for s in self.structure) else ())

    def has_state(self, index, name):
        """Whether parameter `index` keeps state `name` (SGD without momentum: none)."""
        if self.kind == "sgd":
            return self.structure[index].momentum
        return name != "max_exp_avg_sq" or self.structure[index].amsgrad

    def initial_state(self, parameters):
        """Zero-filled state as torch.optim creates it: one list per state name, of the
        tensors of the parameters that keep that state (has_state), in order."""
        return [[torch.zeros_like(p, memory_format=torch.preserve_format)
                 for i, p in enumerate(parameters) if self.has_state(i, name)]
                for name in self.state_names()]

    # The scalars each parameter's update takes, by kind.
    _SLOT_NAMES = {
        "sgd": ("weight_decay", "momentum", "one_minus_dampening", "nesterov_momentum",
                "neg_lr"),
        "adam": ("weight_decay", "one_minus_lr_weight_decay", "one_minus_beta1", "beta2",
                 "one_minus_beta2", "bias_correction2_sqrt", "eps", "neg_step_size"),
    }

    def slot_names(self):
        return self._SLOT_NAMES[self.kind]

    def sentinels(self):
        """Per parameter, a dict of unique floats to trace with, one per slot."""
        names = self.slot_names()
        # Tiny odd values that no model or optimizer uses, distinct per slot.
        return [RecordingScalars({name: -(1 + (i * len(names) + k) * 2.0**-40) * 2.0**-900
                                  for k, name in enumerate(names)})
                for i in range(len(self.parameters))]

    def scalar_values(self, steps=None, first_step=False):
        """Per parameter, the slots' values for the coming step, computed as torch.optim
        computes them. steps: per parameter, Adam's step count after this step's
        increment. first_step: SGD with momentum on a freshly zeroed buffer, where
        torch.optim clones the gradient (mul_ by momentum, then add_ with alpha 1)."""
        values = []
        for i, g in enumerate(self.groups):
            if self.kind == "sgd":
                values.append(dict(weight_decay=g["weight_decay"], momentum=g["momentum"],
                                   one_minus_dampening=1.0 if first_step
                                   else 1 - g["dampening"],
                                   nesterov_momentum=g["momentum"], neg_lr=-g["lr"]))
                continue
            beta1, beta2 = g["betas"]
            step = steps[i] if steps is not None else 1
            bias_correction1 = 1 - beta1**step
            bias_correction2 = 1 - beta2**step
            step_size = g["lr"] / bias_correction1
            values.append(dict(
                weight_decay=g["weight_decay"],
                one_minus_lr_weight_decay=1 - g["lr"] * g["weight_decay"],
                one_minus_beta1=1 - beta1, beta2=beta2, one_minus_beta2=1 - beta2,
                bias_correction2_sqrt=bias_correction2**0.5, eps=g["eps"],
                neg_step_size=-step_size))
        return values

    def update(self, parameters, gradients, state, scalars):
        """Updates parameters (and state, as initial_state lays it out) in place; call
        under torch.no_grad(). scalars: per parameter, the slots' values (sentinels
        when tracing)."""
        pending = [iter(tensors) for tensors in state]
        for i, (p, g) in enumerate(zip(parameters, gradients)):
            own = [next(pending[k]) if self.has_state(i, name) else None
                   for k, name in enumerate(self.state_names())]
            if self.kind == "sgd":
                self._sgd(i, p, g, own, scalars[i])
            else:
                self._adam(i, p, g, own, scalars[i])

    def _sgd(self, i, p, d_p, own, s):
        weight_decay, momentum, nesterov, maximize = self.structure[i]
        if maximize:
            d_p = -d_p
        if weight_decay:
            d_p = d_p.add(p, alpha=s["weight_decay"])
        if momentum:
            (buf,) = own
            buf.mul_(s["momentum"]).add_(d_p, alpha=s["one_minus_dampening"])
            d_p = d_p.add(buf, alpha=s["nesterov_momentum"]) if nesterov else buf
        p.add_(d_p, alpha=s["neg_lr"])

    def _adam(self, i, p, grad, own, s):
        weight_decay, decoupled, amsgrad, maximize = self.structure[i]
        exp_avg, exp_avg_sq = own[0], own[1]
        if maximize:
            grad = -grad
        if weight_decay and decoupled:
            p.mul_(s["one_minus_lr_weight_decay"])
        elif weight_decay:
            grad = grad.add(p, alpha=s["weight_decay"])
        exp_avg.lerp_(grad, s["one_minus_beta1"])
        exp_avg_sq.mul_(s["beta2"]).addcmul_(grad, grad, value=s["one_minus_beta2"])
        if amsgrad:
            max_exp_avg_sq = own[2]
            torch.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq)
            second = max_exp_avg_sq
        else:
            second = exp_avg_sq
        denominator = (second.sqrt() / s["bias_correction2_sqrt"]).add_(s["eps"])
        p.addcdiv_(exp_avg, denominator, value=s["neg_step_size"])


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
