"""The torch.optim algorithms olla traces, one class each, written op for op as torch
2.11's single-tensor (for-loop) implementation computes them on the CPU, with the same
Python scalars (optimizers.py explains the slots).

Each algorithm says:
  - `classes`: the torch.optim classes it traces (exact types); `foreach_matches`:
    whether foreach=True computes the same; `state_at_construction`: whether
    torch.optim makes the state in its constructor;
  - `state`: the per-parameter tensors its update reads and writes, in a fixed order,
    and `keeps(structure, name)`: whether a parameter with that structure has one;
  - `structure(group)`: the options of a param group that decide which ops run;
  - `slots`: the scalars its ops take, and `scalars(group, host)`: their values for a
    step, from `host`, what the step knows outside the traced tensors (a step count);
  - `initial(p, group, name)`: a state tensor as torch.optim makes it, and
    `first_update_state(p, group, name)`: as the first update reads it;
    `create(own, p, group, structure)`: the state torch.optim creates before its first
    step, in a parameter's state dict `own` (True when it made the update's tensors);
    `advance(own, group, created)`: what torch.optim's step does to that state outside
    the update's tensors (step += 1, NAdam's mu_product), returning `host`;
    `first_host(group)`: `host` for a first step from fresh state, no tensor made;
  - `update(p, grad, own, s, structure)`: the update, in place.
"""

import collections

import torch
from torch.optim.optimizer import _get_scalar_dtype


def _zeros(p):
    return torch.zeros_like(p, memory_format=torch.preserve_format)


def _step_tensor(value=0.0):
    """A step count (or NAdam's mu_product) as torch.optim keeps it on the CPU."""
    return torch.tensor(value, dtype=_get_scalar_dtype())


class Algorithm:
    classes = ()
    state = ()
    slots = ()
    Structure = None
    # Whether torch.optim's foreach implementation does the for-loop's arithmetic
    # (the same ops on the same values), so that foreach=True trains the same model.
    foreach_matches = True
    # Whether torch.optim makes the state in the constructor (else at the first step).
    state_at_construction = False
    # Whether it keeps a step count (made with the rest of the state).
    counts_steps = True
    # Whether fused=True (torch.optim's one-kernel update) is traced.
    fused_traced = False

    def keeps(self, structure, name):
        return True

    def check(self, index, group):
        """Raises ValueError for options the update does not follow."""

    def initial(self, p, group, name):
        """State tensor `name` of `p` as torch.optim makes it."""
        return _zeros(p)

    def first_update_state(self, p, group, name):
        """State tensor `name` of `p` as a first update reads it."""
        return self.initial(p, group, name)

    def create(self, own, p, group, structure):
        if self.counts_steps:
            if "step" in own:
                return False
            own["step"] = _step_tensor()
        created = False
        for name in self.state:
            if name not in own and self.keeps(structure, name):
                own[name] = self.initial(p, group, name)
                created = True
        return created

    def first_host(self, group):
        return self.advance({"step": _step_tensor()}, group, True)

    def advance(self, own, group, created):
        own["step"] += 1
        return {"step": own["step"].item()}


class Sgd(Algorithm):
    classes = (torch.optim.SGD,)
    state = ("momentum_buffer",)
    counts_steps = False
    slots = ("weight_decay", "momentum", "one_minus_dampening", "nesterov_momentum",
             "neg_lr")
    Structure = collections.namedtuple("SgdStructure",
                                       "weight_decay momentum nesterov maximize")

    def structure(self, g):
        return self.Structure(g["weight_decay"] != 0, g["momentum"] != 0,
                              bool(g["nesterov"]), bool(g["maximize"]))

    def keeps(self, structure, name):
        return structure.momentum

    def check(self, index, group):
        if group["nesterov"] and (group["momentum"] <= 0 or group["dampening"] != 0):
            raise ValueError(f"optimizer: param_groups[{index}]: nesterov needs momentum "
                             f"and zero dampening")

    def first_host(self, group):
        return {"fresh": True}

    def advance(self, own, group, created):
        # No step count. A momentum buffer made for this step: torch.optim clones the
        # gradient; the traced update adds it to the zeros with alpha 1, the same values.
        return {"fresh": created}

    def scalars(self, g, host):
        return dict(weight_decay=g["weight_decay"], momentum=g["momentum"],
                    one_minus_dampening=1.0 if host["fresh"] else 1 - g["dampening"],
                    nesterov_momentum=g["momentum"], neg_lr=-g["lr"])

    def update(self, p, d_p, own, s, structure):
        weight_decay, momentum, nesterov, maximize = structure
        if maximize:
            d_p = -d_p
        if weight_decay:
            d_p = d_p.add(p, alpha=s["weight_decay"])
        if momentum:
            buf = own["momentum_buffer"]
            buf.mul_(s["momentum"]).add_(d_p, alpha=s["one_minus_dampening"])
            d_p = d_p.add(buf, alpha=s["nesterov_momentum"]) if nesterov else buf
        p.add_(d_p, alpha=s["neg_lr"])


def _adam_moments(p, grad, own, s, weight_decay, decoupled, maximize):
    """What Adam and NAdam share before their denominators: the sign, the weight decay
    (decoupled: on the weight; else L2 on the gradient) and the two moments, updated in
    place. Returns the gradient as the moments saw it."""
    if maximize:
        grad = -grad
    if weight_decay and decoupled:
        p.mul_(s["one_minus_lr_weight_decay"])
    elif weight_decay:
        grad = grad.add(p, alpha=s["weight_decay"])
    own["exp_avg"].lerp_(grad, s["one_minus_beta1"])
    own["exp_avg_sq"].mul_(s["beta2"]).addcmul_(grad, grad, value=s["one_minus_beta2"])
    return grad


class Adam(Algorithm):
    """Adam and AdamW (Adam with decoupled weight decay, which each group states), with
    fused=True too: torch.optim's fused update is one kernel over all parameters, whose
    arithmetic is per element, so the traced step calls it once per parameter (the
    same values, and each gradient freed after its own update); its step count is then
    a state tensor on the parameter's device, which the kernel reads."""
    classes = (torch.optim.Adam, torch.optim.AdamW)
    state = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq", "step")
    slots = ("weight_decay", "one_minus_lr_weight_decay", "one_minus_beta1", "beta2",
             "one_minus_beta2", "bias_correction2_sqrt", "eps", "neg_step_size", "lr",
             "beta1")
    Structure = collections.namedtuple("AdamStructure",
                                       "weight_decay decoupled amsgrad maximize fused")
    fused_traced = True

    def structure(self, g):
        return self.Structure(g["weight_decay"] != 0,
                              bool(g.get("decoupled_weight_decay", False)),
                              bool(g["amsgrad"]), bool(g["maximize"]),
                              bool(g.get("fused")))

    def keeps(self, structure, name):
        if name == "step":  # The fused kernel's input; else a count outside the update.
            return structure.fused
        return name != "max_exp_avg_sq" or structure.amsgrad

    def initial(self, p, group, name):
        if name == "step":
            return torch.zeros((), dtype=_get_scalar_dtype(is_fused=True), device=p.device)
        return _zeros(p)

    def first_update_state(self, p, group, name):
        state = self.initial(p, group, name)
        return state + 1 if name == "step" else state  # Advanced before the kernel.

    def create(self, own, p, group, structure):
        fresh = "step" not in own
        created = super().create(own, p, group, structure)
        if structure.fused and fresh:  # On the parameter's device, as the kernel wants.
            own["step"] = self.initial(p, group, "step")
        return created

    def first_host(self, group):
        if group.get("fused"):
            return {"step": None}
        return super().first_host(group)

    def advance(self, own, group, created):
        if group.get("fused"):
            own["step"] += 1  # On the device: the kernel reads it; no host copy needed.
            return {"step": None}
        return super().advance(own, group, created)

    def scalars(self, g, host):
        beta1, beta2 = g["betas"]
        if g.get("fused"):
            return dict(lr=g["lr"], beta1=beta1, beta2=beta2,
                        weight_decay=g["weight_decay"], eps=g["eps"])
        step = host["step"]
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        return dict(weight_decay=g["weight_decay"],
                    one_minus_lr_weight_decay=1 - g["lr"] * g["weight_decay"],
                    one_minus_beta1=1 - beta1, beta2=beta2, one_minus_beta2=1 - beta2,
                    bias_correction2_sqrt=bias_correction2**0.5, eps=g["eps"],
                    neg_step_size=-(g["lr"] / bias_correction1))

    def update(self, p, grad, own, s, structure):
        weight_decay, decoupled, amsgrad, maximize, fused = structure
        if fused:
            kernel = torch._fused_adamw_ if decoupled else torch._fused_adam_
            kernel([p], [grad], [own["exp_avg"]], [own["exp_avg_sq"]],
                   [own["max_exp_avg_sq"]] if amsgrad else [], [own["step"]],
                   lr=s["lr"], beta1=s["beta1"], beta2=s["beta2"],
                   weight_decay=s["weight_decay"], eps=s["eps"], amsgrad=amsgrad,
                   maximize=maximize)
            return
        _adam_moments(p, grad, own, s, weight_decay, decoupled, maximize)
        exp_avg, exp_avg_sq = own["exp_avg"], own["exp_avg_sq"]
        if amsgrad:
            second = own["max_exp_avg_sq"]
            torch.maximum(second, exp_avg_sq, out=second)
        else:
            second = exp_avg_sq
        denominator = (second.sqrt() / s["bias_correction2_sqrt"]).add_(s["eps"])
        p.addcdiv_(exp_avg, denominator, value=s["neg_step_size"])


class RMSprop(Algorithm):
    classes = (torch.optim.RMSprop,)
    state = ("square_avg", "momentum_buffer", "grad_avg")
    slots = ("weight_decay", "alpha", "one_minus_alpha", "eps", "momentum", "neg_lr")
    Structure = collections.namedtuple("RMSpropStructure",
                                       "weight_decay momentum centered maximize")

    def structure(self, g):
        return self.Structure(g["weight_decay"] != 0, g["momentum"] > 0,
                              bool(g["centered"]), bool(g["maximize"]))

    def keeps(self, structure, name):
        return {"square_avg": True, "momentum_buffer": structure.momentum,
                "grad_avg": structure.centered}[name]

    def scalars(self, g, host):
        return dict(weight_decay=g["weight_decay"], alpha=g["alpha"],
                    one_minus_alpha=1 - g["alpha"], eps=g["eps"], momentum=g["momentum"],
                    neg_lr=-g["lr"])

    def update(self, p, grad, own, s, structure):
        weight_decay, momentum, centered, maximize = structure
        if maximize:
            grad = -grad
        if weight_decay:
            grad = grad.add(p, alpha=s["weight_decay"])
        square_avg = own["square_avg"]
        square_avg.mul_(s["alpha"]).addcmul_(grad, grad, value=s["one_minus_alpha"])
        if centered:
            grad_avg = own["grad_avg"]
            grad_avg.lerp_(grad, s["one_minus_alpha"])
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add_(s["eps"])
        if momentum:
            buf = own["momentum_buffer"]
            buf.mul_(s["momentum"]).addcdiv_(grad, avg)
            p.add_(buf, alpha=s["neg_lr"])
        else:
            p.addcdiv_(grad, avg, value=s["neg_lr"])


class Adagrad(Algorithm):
    classes = (torch.optim.Adagrad,)
    state = ("sum",)
    state_at_construction = True
    slots = ("weight_decay", "eps", "neg_clr")
    Structure = collections.namedtuple("AdagradStructure", "weight_decay maximize")

    def structure(self, g):
        return self.Structure(g["weight_decay"] != 0, bool(g["maximize"]))

    def initial(self, p, group, name):
        return torch.full_like(p, group["initial_accumulator_value"],
                               memory_format=torch.preserve_format)

    def scalars(self, g, host):
        clr = g["lr"] / (1 + (host["step"] - 1) * g["lr_decay"])
        return dict(weight_decay=g["weight_decay"], eps=g["eps"], neg_clr=-clr)

    def update(self, p, grad, own, s, structure):
        weight_decay, maximize = structure
        if maximize:
            grad = -grad
        if weight_decay:
            grad = grad.add(p, alpha=s["weight_decay"])
        state_sum = own["sum"]
        state_sum.addcmul_(grad, grad, value=1)
        std = state_sum.sqrt().add_(s["eps"])
        p.addcdiv_(grad, std, value=s["neg_clr"])


class NAdam(Algorithm):
    classes = (torch.optim.NAdam,)
    state = ("exp_avg", "exp_avg_sq")
    # foreach divides sqrt(exp_avg_sq) by sqrt(bias_correction2); the for-loop takes
    # the root of the quotient.
    foreach_matches = False
    slots = ("weight_decay", "one_minus_lr_weight_decay", "one_minus_beta1", "beta2",
             "one_minus_beta2", "bias_correction2", "eps", "neg_grad_step",
             "neg_avg_step")
    Structure = collections.namedtuple("NAdamStructure", "weight_decay decoupled maximize")

    def structure(self, g):
        return self.Structure(g["weight_decay"] != 0,
                              bool(g.get("decoupled_weight_decay", False)),
                              bool(g["maximize"]))

    def create(self, own, p, group, structure):
        if "step" not in own:
            own["mu_product"] = _step_tensor(1.0)
        return super().create(own, p, group, structure)

    def first_host(self, group):
        return self.advance({"step": _step_tensor(), "mu_product": _step_tensor(1.0)},
                            group, True)

    def advance(self, own, group, created):
        own["step"] += 1
        step = own["step"].item()
        beta1, decay = group["betas"][0], group["momentum_decay"]
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * decay)))
        own["mu_product"] *= mu  # A float32 tensor, as torch.optim keeps it.
        return {"step": step, "mu": mu, "mu_next": mu_next,
                "mu_product": own["mu_product"].item()}

    def scalars(self, g, host):
        beta1, beta2 = g["betas"]
        lr, mu, mu_next, mu_product = g["lr"], host["mu"], host["mu_next"], host["mu_product"]
        return dict(weight_decay=g["weight_decay"],
                    one_minus_lr_weight_decay=1 - lr * g["weight_decay"],
                    one_minus_beta1=1 - beta1, beta2=beta2, one_minus_beta2=1 - beta2,
                    bias_correction2=1 - beta2**host["step"], eps=g["eps"],
                    neg_grad_step=-lr * (1.0 - mu) / (1.0 - mu_product),
                    neg_avg_step=(-lr * mu_next) / (1.0 - mu_product * mu_next))

    def update(self, p, grad, own, s, structure):
        weight_decay, decoupled, maximize = structure
        grad = _adam_moments(p, grad, own, s, weight_decay, decoupled, maximize)
        exp_avg, exp_avg_sq = own["exp_avg"], own["exp_avg_sq"]
        denominator = exp_avg_sq.div(s["bias_correction2"]).sqrt()
        denominator.add_(s["eps"])
        p.addcdiv_(grad, denominator, value=s["neg_grad_step"])
        p.addcdiv_(exp_avg, denominator, value=s["neg_avg_step"])


ALGORITHMS = {"sgd": Sgd(), "adam": Adam(), "rmsprop": RMSprop(), "adagrad": Adagrad(),
              "nadam": NAdam()}
