"""The benchmark models of the OLLA paper, and any torchvision classifier, by name.

Each entry builds a fresh, randomly initialised model with its example inputs, targets
and loss for one batch size. Weights never matter to memory planning, so nothing is
downloaded.
"""

import dataclasses
from typing import Callable, Tuple

import torch
import torch.nn.functional as F
import torchvision
from torch import nn


@dataclasses.dataclass
class Workload:
    model: nn.Module
    inputs: Tuple[torch.Tensor, ...]
    targets: Tuple[torch.Tensor, ...]
    loss_fn: Callable


@dataclasses.dataclass
class Entry:
    name: str
    build: Callable[[int, str], Workload]  # (batch, mode) -> Workload
    description: str
    optimizer: str = "sgd"  # the optimizer the zoo captures it with
    min_train_batch: int = 1


def _classification_loss(output, labels):
    """Cross-entropy; models with auxiliary classifiers in train mode return namedtuples
    (GoogLeNet: logits, aux2, aux1 weighted 0.3; Inception v3: logits, aux weighted 0.4,
    as in torchvision's reference training)."""
    if isinstance(output, torchvision.models.GoogLeNetOutputs):
        return (F.cross_entropy(output.logits, labels) +
                0.3 * (F.cross_entropy(output.aux_logits1, labels) +
                       F.cross_entropy(output.aux_logits2, labels)))
    if isinstance(output, torchvision.models.InceptionOutputs):
        return (F.cross_entropy(output.logits, labels) +
                0.4 * F.cross_entropy(output.aux_logits, labels))
    return F.cross_entropy(output, labels)


def _regression_loss(output, target):
    return F.mse_loss(output, target)


def _vision(builder, image_shape=(3, 224, 224), classes=1000, **kwargs):

    def build(batch, mode):
        model = builder(weights=None, **kwargs)
        images = torch.randn(batch, *image_shape)
        labels = torch.randint(0, classes, (batch,))
        return Workload(model, (images,), (labels,), _classification_loss)

    return build


def _transformer(**kwargs):

    def build(batch, mode):
        model = nn.Transformer(**kwargs)
        d_model = kwargs.get("d_model", 512)
        src = torch.randn(10, batch, d_model)
        tgt = torch.randn(20, batch, d_model)
        return Workload(model, (src, tgt), (torch.randn(20, batch, d_model),),
                        _regression_loss)

    return build


class RobertaEncoder(nn.Module):
    """The RoBERTa-base encoder as published (Liu et al. 2019; the configuration of
    fairseq's and torchtext's roberta.base): token embeddings with padding id 1, learned
    positions numbered from the padding id (514 of them), a LayerNorm over their sum,
    then 12 post-norm encoder layers of width 768, 12 heads and a GELU FFN of 3072,
    dropout 0.1. Returns the features (batch, tokens, 768)."""

    def __init__(self, vocab_size, width=768, layers=12, heads=12, ffn=3072,
                 positions=514, padding_id=1, dropout=0.1):
        super().__init__()
        self.padding_id = padding_id
        self.tokens = nn.Embedding(vocab_size, width, padding_idx=padding_id)
        self.positions = nn.Embedding(positions, width, padding_idx=padding_id)
        self.norm = nn.LayerNorm(width)
        self.dropout = nn.Dropout(dropout)
        layer = nn.TransformerEncoderLayer(width, heads, ffn, dropout, activation="gelu",
                                           batch_first=True)
        # No nested tensors: they pack padded batches, which fake tensors cannot.
        self.layers = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)

    def forward(self, tokens):
        padding = tokens.eq(self.padding_id)
        real = (~padding).int()
        position_ids = (torch.cumsum(real, dim=1) * real).long() + self.padding_id
        x = self.dropout(self.norm(self.tokens(tokens) + self.positions(position_ids)))
        return self.layers(x, src_key_padding_mask=padding)


def _roberta(vocab_size):
    """A RoBERTa-base encoder over 256 token ids; features regressed onto a target."""

    def build(batch, mode):
        model = RobertaEncoder(vocab_size)
        tokens = torch.randint(2, vocab_size, (batch, 256))
        return Workload(model, (tokens,), (torch.randn(batch, 256, 768),), _regression_loss)

    return build


class _DecoderBlock(nn.Module):
    """Pre-norm GPT-2 block: causal self-attention and a GELU MLP, both residual."""

    def __init__(self, width, heads):
        super().__init__()
        self.ln_1 = nn.LayerNorm(width)
        self.attn = nn.MultiheadAttention(width, heads, batch_first=True)
        self.ln_2 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(),
                                 nn.Linear(4 * width, width))

    def forward(self, x, causal_mask):
        h = self.ln_1(x)
        x = x + self.attn(h, h, h, attn_mask=causal_mask, need_weights=False)[0]
        return x + self.mlp(self.ln_2(x))


class Gpt2Like(nn.Module):
    """A GPT-2-small-shaped decoder from torch.nn: 12 layers, d=768, 12 heads, 1024
    positions, 50257-token vocabulary, output projection tied to the token embedding."""

    def __init__(self, vocab=50257, positions=1024, width=768, layers=12, heads=12):
        super().__init__()
        self.wte = nn.Embedding(vocab, width)
        self.wpe = nn.Embedding(positions, width)
        self.blocks = nn.ModuleList(_DecoderBlock(width, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(width)
        mask = torch.triu(torch.ones(positions, positions, dtype=torch.bool), diagonal=1)
        self.register_buffer("causal_mask", mask, persistent=False)

    def forward(self, tokens):
        length = tokens.shape[1]
        positions = torch.arange(length, device=tokens.device)
        x = self.wte(tokens) + self.wpe(positions)
        mask = self.causal_mask[:length, :length]
        for block in self.blocks:
            x = block(x, mask)
        return F.linear(self.ln_f(x), self.wte.weight)


def _gpt2(batch, mode):
    model = Gpt2Like()
    tokens = torch.randint(0, 50257, (batch, 1024))
    next_tokens = torch.randint(0, 50257, (batch, 1024))
    return Workload(model, (tokens,), (next_tokens,),
                    lambda logits, labels: F.cross_entropy(logits.flatten(0, 1),
                                                           labels.flatten()))


_V = torchvision.models

ZOO = {e.name: e for e in [
    Entry("alexnet", _vision(_V.alexnet), "torchvision AlexNet, 224x224"),
    Entry("vgg11", _vision(_V.vgg11), "torchvision VGG-11, 224x224"),
    Entry("vgg16", _vision(_V.vgg16), "torchvision VGG-16, 224x224"),
    Entry("vgg19", _vision(_V.vgg19), "torchvision VGG-19, 224x224"),
    Entry("resnet18", _vision(_V.resnet18), "torchvision ResNet-18, 224x224"),
    Entry("resnet50", _vision(_V.resnet50), "torchvision ResNet-50, 224x224"),
    Entry("googlenet", _vision(_V.googlenet, aux_logits=True, init_weights=True),
          "torchvision GoogLeNet, 224x224, auxiliary classifiers in train mode"),
    Entry("inception_v3", _vision(_V.inception_v3, (3, 299, 299), aux_logits=True,
                                  init_weights=True),
          "torchvision Inception v3, 299x299, auxiliary classifier in train mode",
          min_train_batch=2),
    Entry("mobilenet_v2", _vision(_V.mobilenet_v2), "torchvision MobileNet v2, 224x224"),
    Entry("mnasnet0_5", _vision(_V.mnasnet0_5), "torchvision MNASNet 0.5, 224x224"),
    Entry("efficientnet_b0", _vision(_V.efficientnet_b0),
          "torchvision EfficientNet-B0, 224x224"),
    Entry("squeezenet1_0", _vision(_V.squeezenet1_0), "torchvision SqueezeNet 1.0, 224x224"),
    Entry("r3d_18", _vision(_V.video.r3d_18, (3, 1, 112, 112), classes=400),
          "torchvision video ResNet3D-18, input Bx3x1x112x112"),
    Entry("vit_b_16", _vision(_V.vit_b_16), "torchvision ViT-B/16, 224x224"),
    Entry("transformer_small",
          _transformer(nhead=1, num_encoder_layers=1, num_decoder_layers=1),
          "nn.Transformer(nhead=1, 1 encoder and 1 decoder layer), src 10xBx512, "
          "tgt 20xBx512, MSE loss"),
    Entry("transformer", _transformer(),
          "nn.Transformer() defaults (6+6 layers, 8 heads), src 10xBx512, tgt 20xBx512, "
          "MSE loss"),
    Entry("roberta_base", _roberta(50265),
          "RoBERTa-base encoder (12 layers, d=768, 12 heads), 256 token ids, MSE loss on "
          "the features"),
    Entry("xlmr_base", _roberta(250002),
          "XLM-R-base encoder (RoBERTa-base with XLM-R's 250,002-token vocabulary), 256 "
          "token ids, MSE loss on the features"),
    Entry("gpt2_small", _gpt2,
          "GPT-2-small-like decoder from torch.nn (12 layers, d=768, 12 heads, "
          "sequence 1024), next-token cross-entropy, Adam", optimizer="adam"),
]}


def torchvision_classifiers():
    return sorted(torchvision.models.list_models(module=torchvision.models))


class UnknownModel(ValueError):
    pass


def workload(name, batch, mode):
    """The Workload for a zoo entry or any torchvision classification model by name."""
    if name in ZOO:
        entry = ZOO[name]
        return entry.build(batch, mode)
    if name in torchvision_classifiers():
        size = 299 if name == "inception_v3" else 224
        build = _vision(lambda **kw: torchvision.models.get_model(name, **kw),
                        (3, size, size))
        return build(batch, mode)
    raise UnknownModel(f"unknown model '{name}': not in the zoo and not a torchvision "
                       f"classification model (see --list)")
