// Synthetic graphs whose eager order is far from optimal, for benchmarks and tests of
// the schedulers at any scale (`olla generate --shape`, generated.h). Each is the
// forward pass of repeated units (activations only), listed in an order a framework
// could run but a poor one; each unit's comment says why and what a good order holds.
// Sizes vary around their means by seed. All are deterministic functions of their
// options on every platform (synthetic_builder.h).
#pragma once

#include <cstdint>

#include "olla/graph/graph.h"

namespace olla {

// Inception-like blocks whose branches widen then narrow, listed stage by stage
// across the branches (breadth first): the eager order holds every branch's wide
// tensor at once, one branch at a time holds one.
struct MultiBranchOptions {
  int32_t blocks = 10;
  int32_t branches = 4;
  int32_t depth = 3;  // Ops per branch: the first widens, the last narrows.
  uint64_t seed = 1;
  int64_t narrow_bytes = 256 << 10;  // Block inputs and branch outputs, about.
  int32_t widening = 8;              // Inner tensors are this many times larger.
};
// blocks * (branches * depth + 1) ops, plus the loss.
Graph MultiBranchGraph(const MultiBranchOptions& options);

// U-Net-like hourglasses in sequence (stacked hourglass networks) with long skips.
// Every level works on tensors of about level_bytes (channels growing as fast as the
// resolution shrinks), and each encoder level ends in a skip projection that doubles
// its tensor for the decoder's concatenation at that level, listed in the encoder: the
// eager order carries every level's doubled skip across the bottom of the hourglass;
// running each projection just before its decoder level carries the encoder's tensor
// instead (the long skip), half the bytes: about a quarter less at the peak.
struct UNetOptions {
  int32_t stacks = 4;
  int32_t levels = 4;
  int32_t convs = 2;  // Per level, in the encoder and in the decoder.
  uint64_t seed = 1;
  int64_t level_bytes = 4 << 20;
};
// stacks * (levels * (2 * convs + 4) + 1) ops, plus the loss.
Graph UNetGraph(const UNetOptions& options);

// Transformer blocks with many small tensors: a layer norm, one projection per head
// for each of q, k and v, each head's sequence x sequence scores, softmax and context,
// then the heads' concatenation, the output projection, the residual and the MLP
// (4 x width). Listed stage by stage across the heads (every head's q, then every
// head's k, ..., as a per-head split of batched kernels runs): the eager order holds
// every head's scores and softmax at once, head by head holds one head's.
struct TransformerBlocksOptions {
  int32_t blocks = 4;
  int32_t heads = 8;
  int32_t sequence = 512;  // Tokens; float32, batch 1.
  int32_t width = 512;     // Model dimension.
  uint64_t seed = 1;
};
// blocks * (6 * heads + 9) ops, plus the loss.
Graph TransformerBlocksGraph(const TransformerBlocksOptions& options);

// Random layered DAGs: segments of `depth` layers of `width` ops. Each op reads the op
// of its column in the layer before and, each with even chance, the ops of the two
// columns beside it; sizes are spread from min_bytes to max_bytes (as often small as
// large); a chain of joins folds a segment's last layer into the next segment's input.
// Listed layer by layer: the eager order holds about two layers (2 x width tensors); a
// diagonal sweep holds about two diagonals (2 x depth). The optimum is not known in
// closed form: the graphs that test the bounds.
struct LayeredOptions {
  int32_t segments = 10;
  int32_t depth = 6;
  int32_t width = 64;
  uint64_t seed = 1;
  int64_t min_bytes = 64 << 10;
  int64_t max_bytes = 4 << 20;
};
// segments * (depth + 1) * width ops, plus the loss.
Graph LayeredGraph(const LayeredOptions& options);

// The four shapes above in one graph: units drawn at random (a multi-branch block, an
// hourglass, a transformer block or a layered segment, each with the default options
// and sizes drawn from the seed), in sequence, until at least `ops` ops.
struct MixtureOptions {
  int32_t ops = 10000;
  uint64_t seed = 1;
};
Graph MixtureGraph(const MixtureOptions& options);

}  // namespace olla
