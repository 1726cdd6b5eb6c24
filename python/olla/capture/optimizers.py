"""Optimizer updates written as in-place tensor ops, so make_fx records them.

Stock torch.optim cannot be traced in torch 1.13: inside make_fx, Adam fails once it has
state, and in fake mode its step silently disappears. These functions perform the same
arithmetic as torch.optim's single-tensor (for-loop) implementations with default
options, on state that already exists: a steady-state training step.
"""

import math

import torch

OPTIMIZERS = ("sgd", "momentum", "adam")


class Optimizer:
    """One optimizer: its per-parameter state tensors and its in-place update."""

    def __init__(self, name, lr):
        if name not in OPTIMIZERS:
            raise ValueError(
                f"unknown optimizer '{name}' (expected one of: {', '.join(OPTIMIZERS)})")
        self.name = name
        self.lr = lr

    def state_names(self):
        """Names of the state tensors kept per parameter, in a fixed order."""
        return {"sgd": (), "momentum": ("momentum_buffer",),
                "adam": ("exp_avg", "exp_avg_sq")}[self.name]

    def initial_state(self, parameters):
        """Zero-filled state, one list per state name, shaped like the parameters."""
        return [[torch.zeros_like(p) for p in parameters] for _ in self.state_names()]

    def update(self, parameters, gradients, state):
        """Updates parameters (and state) in place; call under torch.no_grad()."""
        if self.name == "sgd":
            for p, g in zip(parameters, gradients):
                p.add_(g, alpha=-self.lr)
        elif self.name == "momentum":
            (buffers,) = state
            for p, g, buf in zip(parameters, gradients, buffers):
                buf.mul_(0.9).add_(g)
                p.add_(buf, alpha=-self.lr)
        else:
            self._adam(parameters, gradients, *state)

    def _adam(self, parameters, gradients, exp_avgs, exp_avg_sqs):
        beta1, beta2, eps = 0.9, 0.999, 1e-8
        step = 1  # the bias corrections of the first step; shapes do not depend on it
        bias_correction1 = 1 - beta1**step
        bias_correction2_sqrt = math.sqrt(1 - beta2**step)
        step_size = self.lr / bias_correction1
        for p, g, m, v in zip(parameters, gradients, exp_avgs, exp_avg_sqs):
            m.mul_(beta1).add_(g, alpha=1 - beta1)
            v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
            denominator = (v.sqrt() / bias_correction2_sqrt).add_(eps)
            p.addcdiv_(m, denominator, value=-step_size)
