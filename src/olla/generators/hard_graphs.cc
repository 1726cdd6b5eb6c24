#include "olla/generators/hard_graphs.h"

#include <string>
#include <vector>

#include <fmt/format.h>

#include "olla/generators/synthetic_builder.h"

namespace olla {
namespace {

using synthetic::Builder;
using synthetic::Random;

// Each unit reads `input`, adds its ops under names starting with `prefix`, and
// returns its output: the shapes compose into mixtures.

BufferId AddMultiBranchBlock(Builder& b, Random& random,
                             const MultiBranchOptions& options, const std::string& prefix,
                             BufferId input) {
  const auto branches = static_cast<size_t>(options.branches);
  std::vector<BufferId> current(branches, input);  // Branch j's latest tensor.
  for (int32_t s = 0; s < options.depth; ++s) {
    for (size_t j = 0; j < branches; ++j) {
      const bool last = s == options.depth - 1;
      const int64_t size = random.Around(last ? options.narrow_bytes / options.branches
                                              : options.narrow_bytes * options.widening);
      const BufferId out = b.AddBuffer(fmt::format("{}.b{}.{}", prefix, j, s), size,
                                       BufferKind::kActivation);
      b.AddOp(fmt::format("{}.branch{}.op{}", prefix, j, s), "conv", Phase::kForward,
              {out}, {current[j]});
      current[j] = out;
    }
  }
  const BufferId joined =
      b.AddBuffer(prefix, random.Around(options.narrow_bytes), BufferKind::kActivation);
  b.AddOp(prefix + ".concat", "cat", Phase::kForward, {joined}, current);
  return joined;
}

BufferId AddHourglass(Builder& b, Random& random, const UNetOptions& options,
                      const std::string& prefix, BufferId input) {
  const auto levels = static_cast<size_t>(options.levels);
  std::vector<int64_t> level_bytes(levels);
  for (size_t l = 0; l < levels; ++l) level_bytes[l] = random.Around(options.level_bytes);
  auto conv = [&](const std::string& name, int64_t size, std::vector<BufferId> uses,
                  const char* type = "conv") {
    const BufferId out = b.AddBuffer(prefix + "." + name, size, BufferKind::kActivation);
    b.AddOp(prefix + "." + name, type, Phase::kForward, {out}, std::move(uses));
    return out;
  };
  std::vector<BufferId> skips(levels);
  BufferId x = input;
  for (size_t l = 0; l < levels; ++l) {
    for (int32_t c = 0; c < options.convs; ++c)
      x = conv(fmt::format("enc{}.conv{}", l, c), level_bytes[l], {x});
    skips[l] = conv(fmt::format("enc{}.skip", l), 2 * level_bytes[l], {x});
    const int64_t below = l + 1 < levels ? level_bytes[l + 1] : level_bytes[l] / 2;
    x = conv(fmt::format("enc{}.down", l), below, {x});
  }
  x = conv("bottom", level_bytes[levels - 1] / 2 / 512 * 512 + 512, {x});
  for (size_t l = levels; l-- > 0;) {
    const BufferId up = conv(fmt::format("dec{}.up", l), level_bytes[l], {x});
    x = conv(fmt::format("dec{}.cat", l), 3 * level_bytes[l], {up, skips[l]}, "cat");
    for (int32_t c = 0; c < options.convs; ++c)
      x = conv(fmt::format("dec{}.conv{}", l, c), level_bytes[l], {x});
  }
  return x;
}

BufferId AddTransformerBlock(Builder& b, Random& random,
                             const TransformerBlocksOptions& options,
                             const std::string& prefix, BufferId input) {
  // One sequence length per block, up to a quarter either way, a multiple of 8.
  const int64_t sequence =
      random.Between(options.sequence * 3 / 32, options.sequence * 5 / 32) * 8;
  const int64_t token_bytes = 4 * sequence;  // float32 per feature.
  const int64_t activation = token_bytes * options.width;
  const int64_t head = token_bytes * (options.width / options.heads);
  const int64_t scores = token_bytes * sequence;
  auto op = [&](const std::string& name, const char* type, int64_t size,
                std::vector<BufferId> uses) {
    const BufferId out = b.AddBuffer(prefix + "." + name, size, BufferKind::kActivation);
    b.AddOp(prefix + "." + name, type, Phase::kForward, {out}, std::move(uses));
    return out;
  };
  const auto heads = static_cast<size_t>(options.heads);
  const BufferId normed = op("ln1", "layer_norm", activation, {input});
  std::vector<BufferId> q(heads), k(heads), v(heads), s(heads), p(heads), c(heads);
  for (size_t h = 0; h < heads; ++h)
    q[h] = op(fmt::format("q{}", h), "mm", head, {normed});
  for (size_t h = 0; h < heads; ++h)
    k[h] = op(fmt::format("k{}", h), "mm", head, {normed});
  for (size_t h = 0; h < heads; ++h)
    v[h] = op(fmt::format("v{}", h), "mm", head, {normed});
  for (size_t h = 0; h < heads; ++h)
    s[h] = op(fmt::format("scores{}", h), "bmm", scores, {q[h], k[h]});
  for (size_t h = 0; h < heads; ++h)
    p[h] = op(fmt::format("softmax{}", h), "softmax", scores, {s[h]});
  for (size_t h = 0; h < heads; ++h)
    c[h] = op(fmt::format("context{}", h), "bmm", head, {p[h], v[h]});
  const BufferId joined = op("heads", "cat", activation, c);
  const BufferId projected = op("proj", "mm", activation, {joined});
  const BufferId attended = op("add1", "add", activation, {input, projected});
  const BufferId normed2 = op("ln2", "layer_norm", activation, {attended});
  const BufferId hidden = op("fc1", "mm", 4 * activation, {normed2});
  const BufferId activated = op("gelu", "gelu", 4 * activation, {hidden});
  const BufferId out = op("fc2", "mm", activation, {activated});
  return op("add2", "add", activation, {attended, out});
}

BufferId AddLayeredSegment(Builder& b, Random& random, const LayeredOptions& options,
                           const std::string& prefix, BufferId input) {
  const auto width = static_cast<size_t>(options.width);
  std::vector<BufferId> previous(width, input);
  for (int32_t l = 0; l < options.depth; ++l) {
    std::vector<BufferId> layer(width);
    for (size_t j = 0; j < width; ++j) {
      std::vector<BufferId> uses = {previous[j]};
      if (l > 0 && j > 0 && random.Chance(0.5)) uses.push_back(previous[j - 1]);
      if (l > 0 && j + 1 < width && random.Chance(0.5)) uses.push_back(previous[j + 1]);
      const std::string name = fmt::format("{}.l{}.{}", prefix, l, j);
      layer[j] =
          b.AddBuffer(name, random.SpreadBytes(options.min_bytes, options.max_bytes),
                      BufferKind::kActivation);
      b.AddOp(name, "random", Phase::kForward, {layer[j]}, std::move(uses));
    }
    previous = std::move(layer);
  }
  BufferId folded;
  for (size_t j = 0; j < width; ++j) {
    std::vector<BufferId> uses = {previous[j]};
    if (j > 0) uses.push_back(folded);
    const std::string name = fmt::format("{}.join{}", prefix, j);
    folded = b.AddBuffer(name, random.SpreadBytes(options.min_bytes, options.max_bytes),
                         BufferKind::kActivation);
    b.AddOp(name, "add", Phase::kForward, {folded}, std::move(uses));
  }
  return folded;
}

// The graph input, then units while `more(builder, k)` (`add_unit(builder, random, k,
// input)` returns unit k's output), then a loss that reads the last output.
template <typename More, typename AddUnit>
Graph Chain(const std::string& name, uint64_t seed, int64_t input_bytes, More more,
            AddUnit add_unit) {
  Random random(seed);
  Builder b;
  BufferId x = b.AddBuffer("input", random.Around(input_bytes), BufferKind::kInput);
  for (int32_t k = 0; more(b, k); ++k) x = add_unit(b, random, k, x);
  const BufferId loss = b.AddBuffer("loss", 512, BufferKind::kActivation);
  b.buffers[loss.index()].output = true;
  b.AddOp("loss", "loss", Phase::kForward, {loss}, {x});
  return b.Build(name);
}

// `more` for a fixed number of units.
auto Units(int32_t units) {
  return [units](const Builder&, int32_t k) { return k < units; };
}

}  // namespace

Graph MultiBranchGraph(const MultiBranchOptions& options) {
  OLLA_CHECK(options.blocks >= 1 && options.branches >= 1 && options.depth >= 1,
             "a multi-branch graph needs a block, a branch and an op per branch");
  return Chain(fmt::format("multi_branch_{}x{}x{}_seed_{}", options.blocks,
                           options.branches, options.depth, options.seed),
               options.seed, options.narrow_bytes, Units(options.blocks),
               [&](Builder& b, Random& random, int32_t k, BufferId x) {
                 return AddMultiBranchBlock(b, random, options, fmt::format("block{}", k),
                                            x);
               });
}

Graph UNetGraph(const UNetOptions& options) {
  OLLA_CHECK(options.stacks >= 1 && options.levels >= 1 && options.convs >= 1,
             "a U-Net graph needs a stack, a level and a conv per level");
  return Chain(
      fmt::format("unet_{}x{}_seed_{}", options.stacks, options.levels, options.seed),
      options.seed, options.level_bytes, Units(options.stacks),
      [&](Builder& b, Random& random, int32_t k, BufferId x) {
        return AddHourglass(b, random, options, fmt::format("hourglass{}", k), x);
      });
}

Graph TransformerBlocksGraph(const TransformerBlocksOptions& options) {
  OLLA_CHECK(
      options.blocks >= 1 && options.heads >= 1 && options.sequence >= 8 &&
          options.width >= options.heads,
      "a transformer graph needs a block, a head, 8 tokens and a feature per head");
  return Chain(
      fmt::format("transformer_{}x{}_seed_{}", options.blocks, options.heads,
                  options.seed),
      options.seed, int64_t{4} * options.sequence * options.width, Units(options.blocks),
      [&](Builder& b, Random& random, int32_t k, BufferId x) {
        return AddTransformerBlock(b, random, options, fmt::format("block{}", k), x);
      });
}

Graph LayeredGraph(const LayeredOptions& options) {
  OLLA_CHECK(options.segments >= 1 && options.depth >= 1 && options.width >= 1,
             "a layered graph needs a segment, a layer and an op per layer");
  return Chain(fmt::format("layered_{}x{}x{}_seed_{}", options.segments, options.depth,
                           options.width, options.seed),
               options.seed, options.min_bytes, Units(options.segments),
               [&](Builder& b, Random& random, int32_t k, BufferId x) {
                 return AddLayeredSegment(b, random, options, fmt::format("segment{}", k),
                                          x);
               });
}

Graph MixtureGraph(const MixtureOptions& options) {
  OLLA_CHECK(options.ops >= 1, "a mixture needs an op");
  auto more = [&](const Builder& b, int32_t) {
    return static_cast<int64_t>(b.ops.size()) < options.ops;
  };
  return Chain(
      fmt::format("mixture_{}_ops_seed_{}", options.ops, options.seed), options.seed,
      1 << 20, more, [&](Builder& b, Random& random, int32_t k, BufferId x) {
        switch (random.Between(0, 3)) {
          case 0:
            return AddMultiBranchBlock(b, random, {}, fmt::format("unit{}.branches", k),
                                       x);
          case 1:
            return AddHourglass(b, random, {}, fmt::format("unit{}.hourglass", k), x);
          case 2:
            return AddTransformerBlock(b, random, {},
                                       fmt::format("unit{}.transformer", k), x);
          default:
            return AddLayeredSegment(b, random, {}, fmt::format("unit{}.layered", k), x);
        }
      });
}

}  // namespace olla
