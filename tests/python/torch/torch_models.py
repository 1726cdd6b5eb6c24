"""Small models for the runtime's tests: a GPT-style decoder with a tied head."""

import torch
from torch import nn


class Block(nn.Module):

    def __init__(self, width, heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.attention = nn.MultiheadAttention(width, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(),
                                 nn.Linear(4 * width, width))

    def forward(self, x, mask):
        h = self.norm1(x)
        x = x + self.attention(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


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
