// ExpandGraph: the graph a plan with recomputations runs (plan/plan.h Recomputation).
//
// Each recomputation becomes an op of its own: it runs the same operator on the same
// inputs (or on earlier recomputations' copies, where they feed it) and allocates a copy
// of every output, and the ops it serves read those copies instead of the originals.
// So the originals die at their last use outside the served ops, and the copies live
// from the recomputation to their last use: that is all rematerialization does to
// memory, and every later stage (schedules, lifetimes, placement, the plan checker)
// works on the expanded graph unchanged.
//
// Precedence added: the original op runs before its recomputation (so the
// recomputation reads the inputs as they were then: every in-place writer an input had
// before the original op runs before it as well); the recomputation runs before every
// op that overwrites one of its inputs after the original op in eager order (it must
// read the old contents, as the original did). When that cannot hold (the input is
// overwritten before the copies are needed) the graph has a cycle and the expansion is
// an error naming the recomputation.
//
// Ids: the graph's buffers keep theirs and the copies follow, in recomputation order;
// ops are renumbered into an eager order that runs each recomputation just before the
// first op that reads its copies.
//
// An op may run again more than once, each run for its own readers (a copy per group
// of distant readers frees the bytes between the groups); no reader reads two runs of
// one op.
//
// Refused (recompute_rules.h): ops that draw random numbers, write in place, allocate
// nothing, or whose outputs something writes in place (an in-place op's victim); a
// reader served or fed by two runs of one op; a served op that reads none of the op's
// outputs.
#pragma once

#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "olla/core/ids.h"
#include "olla/core/status.h"
#include "olla/graph/graph.h"
#include "olla/graph/order.h"
#include "olla/plan/plan.h"

namespace olla {

struct ExpandedGraph {
  Graph graph;
  // expanded_op[o]: the expanded id of the graph's op o; recompute_op[i]: that of
  // recomputation i.
  std::vector<OpId> expanded_op;
  std::vector<OpId> recompute_op;
  // source_op[e]: the graph's op that expanded op e runs (its own, or the one it
  // recomputes); source_buffer[b]: the graph's buffer that expanded buffer b holds.
  std::vector<OpId> source_op;
  std::vector<BufferId> source_buffer;

  bool is_recomputation(OpId expanded) const {
    return expanded_op[source_op[expanded.index()].index()] != expanded;
  }
};

// An error names the recomputation (by its index and op) and what is wrong.
StatusOr<ExpandedGraph> ExpandGraph(const Graph& graph,
                                    std::span<const Recomputation> recompute);

// File ids for recomputations without any (a search's): the ops' after the graph's
// largest op id, the copies' after its largest buffer id, in order.
void AssignRecomputeIds(const Graph& graph, std::vector<Recomputation>& recompute);

// One entry of a plan's order as a runtime runs it, in the graph's ids: the op it runs,
// whether as a recomputation (its index in the plan's `recompute`; the copies that run
// allocates in place of the op's outputs), and which recomputations' copies it reads
// instead of the originals. A runtime that follows these needs nothing else of a
// plan's recomputations (python/olla/torch/executor.py).
struct PlanStep {
  OpId entry;  // The order's: an op of the expanded graph.
  OpId op;     // The graph's op it runs.
  std::optional<int32_t> recomputation;
  std::vector<std::pair<BufferId, BufferId>> copies;  // Output -> its copy's buffer in
                                                      // the expanded graph.
  std::vector<int32_t> reads_copies_of;               // Recomputations, ascending.
};

// The steps of `order`, an order of `expanded` (ExpandGraph(graph, recompute)).
std::vector<PlanStep> PlanSteps(const ExpandedGraph& expanded, const Order& order);

}  // namespace olla
