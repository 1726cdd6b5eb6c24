#include "olla/generators/generated.h"

#include <algorithm>
#include <string>

#include "olla/generators/hard_graphs.h"
#include "olla/generators/synthetic.h"

namespace olla {
namespace {

// How many units of `ops_per_unit` ops (plus the loss) make about `ops` ops.
int32_t UnitsFor(int32_t ops, int32_t ops_per_unit) {
  return std::max(1, (ops - 1) / ops_per_unit);
}

}  // namespace

StatusOr<Graph> GenerateGraph(std::string_view shape, int32_t ops, uint64_t seed) {
  if (shape == "training") {
    TrainingLikeOptions options;
    options.layers = UnitsFor(ops, 3);
    options.seed = seed;
    return TrainingLikeGraph(options);
  }
  if (shape == "multi-branch") {
    MultiBranchOptions options;
    options.blocks = UnitsFor(ops, options.branches * options.depth + 1);
    options.seed = seed;
    return MultiBranchGraph(options);
  }
  if (shape == "unet") {
    UNetOptions options;
    options.stacks = UnitsFor(ops, options.levels * (2 * options.convs + 4) + 1);
    options.seed = seed;
    return UNetGraph(options);
  }
  if (shape == "transformer") {
    TransformerBlocksOptions options;
    options.blocks = UnitsFor(ops, 6 * options.heads + 9);
    options.seed = seed;
    return TransformerBlocksGraph(options);
  }
  if (shape == "layered") {
    LayeredOptions options;
    const int32_t per_segment = (options.depth + 1) * options.width;
    options.segments = UnitsFor(ops, per_segment);
    // Below one segment's ops, a narrower segment.
    if (ops - 1 < per_segment)
      options.width = std::max(2, (ops - 1) / (options.depth + 1));
    options.seed = seed;
    return LayeredGraph(options);
  }
  if (shape == "mixture") {
    MixtureOptions options;
    options.ops = ops;
    options.seed = seed;
    return MixtureGraph(options);
  }
  return InvalidInput("unknown graph shape '" + std::string(shape) + "'");
}

}  // namespace olla
