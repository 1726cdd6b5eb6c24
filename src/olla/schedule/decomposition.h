// Exact decomposition of a scheduling problem at cut ops (ROAM's observation).
//
// A free op (executor.h) is a cut when every other free op is its ancestor or its
// descendant. In every valid order all free ops before a cut are its ancestors and all
// after are its descendants, so the memory state when the cut runs is the same in every
// order, and the stretches between consecutive cuts are independent problems: solving
// each optimally and concatenating them is optimal. Ops timed by rule (executor.h) do
// not take part; they run where the rules put them.
#pragma once

#include <vector>

#include "olla/analysis/reachability.h"
#include "olla/graph/graph.h"
#include "olla/schedule/executor.h"

namespace olla {

struct Piece {
  std::vector<OpId> free_ops;  // In eager order.
  bool is_cut = false;         // A single cut op.
};

// The pieces in execution order, each cut its own piece. Above
// Reachability::kMaxMatrixOps ops, without a transitive closure, a linear test finds
// the cuts that no precedence edge passes over in the eager order (most of them).
// `closure_ops` moves that limit (for tests).
std::vector<Piece> Decompose(const Graph& graph, const Timings& timings,
                             int32_t closure_ops = Reachability::kMaxMatrixOps);

}  // namespace olla
