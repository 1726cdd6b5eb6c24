"""Small models for the runtime's tests: a GPT-style decoder with a tied head, an MLP of
six tanh layers with its batch, and a residual block under a linear loss."""

import torch
from torch import nn

# The zoo's pre-norm GPT-2 block (causal attention, GELU MLP).
from olla.zoo import _DecoderBlock as Block


class TinyGPT(nn.Module):
    """Token and position embeddings, causal blocks, a head tied to the embedding."""

    def __init__(self, vocabulary=96, width=32, heads=4, layers=2, context=16):
        super().__init__()
        self.tok = nn.Embedding(vocabulary, width)
        self.pos = nn.Parameter(torch.zeros(context, width))
        self.blocks = nn.ModuleList(Block(width, heads) for _ in range(layers))
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocabulary, bias=False)
        self.head.weight = self.tok.weight  # Tied.
        self.register_buffer("mask", torch.triu(
            torch.full((context, context), float("-inf")), diagonal=1))

    def forward(self, tokens):
        x = self.tok(tokens) + self.pos[:tokens.shape[1]]
        mask = self.mask[:tokens.shape[1], :tokens.shape[1]]
        for block in self.blocks:
            x = block(x, mask)
        return self.head(self.norm(x))


def gpt_loss(logits, targets):
    return nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())


def tanh_mlp():
    """Six 64-wide linear layers with tanh, then four classes; seeded."""
    torch.manual_seed(0)
    return nn.Sequential(*[layer for _ in range(6)
                           for layer in (nn.Linear(64, 64), nn.Tanh())], nn.Linear(64, 4))


def mlp_batch():
    """256 inputs for tanh_mlp and their labels; seeded."""
    generator = torch.Generator().manual_seed(1)
    return torch.randn(256, 64, generator=generator), torch.randint(0, 4, (256,),
                                                                      generator=generator)


class ResidualMLP(nn.Module):
    """An input layer, then one residual block whose branch narrows 256 -> 64 -> 256."""

    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(16, 256)
        self.branch = nn.Sequential(nn.Linear(256, 64), nn.GELU(), nn.Linear(64, 256))

    def forward(self, x):
        h = self.inp(x)
        return h + self.branch(h)


def linear_loss(output, targets):
    """The output's product with the targets, averaged: its gradient, read by the
    branch's backward pass and again where the skip joins it, is made again from the
    targets by two backward ops."""
    return (output * targets).mean()


def residual_batch():
    generator = torch.Generator().manual_seed(3)
    return (torch.randn(512, 16, generator=generator),
            torch.randn(512, 256, generator=generator))
