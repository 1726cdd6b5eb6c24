// Pinned orders: ordering constraints a user adds to a graph ("run these ops in this
// order"), honoured by every scheduler because they become precedence edges.
//
// PinChains returns the graph with an edge between consecutive ops of every chain. The
// ops are renumbered into a topological order that keeps the eager order wherever the
// pins allow (a pin may ask for the reverse of the eager order), so the new graph's op
// i is original op `original[i]`; file ids are kept, so plans written for it apply to
// the original graph. Pins that contradict the graph's dependencies are an error that
// names a cycle.
#pragma once

#include <vector>

#include "olla/core/status.h"
#include "olla/graph/graph.h"

namespace olla {

struct PinnedGraph {
  Graph graph;
  std::vector<OpId> original;  // original[new op index] = op of the input graph.
};

StatusOr<PinnedGraph> PinChains(const Graph& graph,
                                const std::vector<std::vector<OpId>>& chains);

}  // namespace olla
