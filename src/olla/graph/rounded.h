// RoundSizes: the graph with every buffer size and workspace rounded up to the
// alignment, as an allocator of that alignment lays them out: its live bytes are what
// an arena of its order needs at least. Same ids, ops and edges. nullopt when a rounded
// size, or their sum, passes the limits of Graph::Create.
#pragma once

#include <cstdint>
#include <optional>

#include "olla/graph/graph.h"

namespace olla {

std::optional<Graph> RoundSizes(const Graph& graph, int64_t alignment);

}  // namespace olla
