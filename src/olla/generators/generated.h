// The shapes `olla generate` writes, by name, sized by a number of ops: the training
// step of synthetic.h and the graphs of hard_graphs.h whose eager order is far from
// optimal. Each shape repeats a unit (a layer, a block, an hourglass, a segment), so
// the graph has about `ops` ops, at least one unit's.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "olla/core/status.h"
#include "olla/graph/graph.h"

namespace olla {

inline constexpr std::array<std::string_view, 6> kGeneratedShapes = {
    "training", "multi-branch", "unet", "transformer", "layered", "mixture"};

// An error names an unknown shape.
StatusOr<Graph> GenerateGraph(std::string_view shape, int32_t ops, uint64_t seed);

}  // namespace olla
