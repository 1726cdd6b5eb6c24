// Lower bounds on the peak live bytes of every valid order of a graph.
//
// - Single-op footprint: op v's inputs, outputs and workspace are live together when v
//   runs, whatever the order.
// - Forced-live set: when v runs, every buffer allocated by v or an ancestor of v (or a
//   graph input, live from step 0) that is used by v or a descendant of v (or is a
//   graph output) must be live, whatever the order. It contains the footprint.
// Persistent buffers are excluded, as from the timeline. The bound of a graph is the
// larger of the two maxima over ops.
// Cost: footprints O(uses); forced-live O(ops/256 * (ops + edges + buffers)) time and
// O(ops + buffers) memory (reachability.h, SweepReachBlock): 0.2 s at 100,000 ops,
// minutes at 1,000,000. With a budget it is anytime (ComputeForcedLive).
#pragma once

#include <cstdint>
#include <vector>

#include "olla/core/budget.h"
#include "olla/graph/graph.h"

namespace olla {

// Bytes of each op's inputs, outputs and workspace (distinct buffers counted once;
// with `counted`, only those buffers, by index).
std::vector<int64_t> SingleOpFootprints(const Graph& graph,
                                        const std::vector<bool>& counted = {});

// Bytes forced live at each op, as defined above, including its workspace.
std::vector<int64_t> ForcedLiveBytes(const Graph& graph);

// The forced-live bytes within a budget. Ops are computed in blocks of 256, in
// decreasing order of the eager order's live bytes in the block (no order can force
// more bytes live at an op than are live there in the eager order, so those blocks
// hold the largest values), while the budget's clock allows. Ops of blocks not reached
// keep their single-op footprint: a weaker bound at that op, still a bound. With
// `counted`, only those buffers count, in the footprints too.
struct ForcedLive {
  std::vector<int64_t> bytes;  // Per op.
  int32_t ops_computed = 0;    // With the forced-live definition; the rest footprints.
  bool complete() const { return ops_computed == static_cast<int32_t>(bytes.size()); }
};
// counted: which buffers count (by index; empty: every one that is not persistent).
ForcedLive ComputeForcedLive(const Graph& graph, const Budget& budget,
                             const std::vector<bool>& counted = {});

struct LowerBounds {
  int64_t single_op_bytes = 0;
  OpId single_op;  // An op attaining it (the lowest id).
  int64_t forced_live_bytes = 0;
  OpId forced_live_op;
  // ForcedLiveBytes(graph), kept: the schedule's exact search prunes with it, and it is
  // the costly part of the bounds. Footprints where the budget did not reach.
  std::vector<int64_t> forced_live;
  int32_t forced_live_ops_computed = 0;  // Of forced_live.size().
  bool forced_live_complete() const {
    return forced_live_ops_computed == static_cast<int32_t>(forced_live.size());
  }

  int64_t best() const {
    return single_op_bytes > forced_live_bytes ? single_op_bytes : forced_live_bytes;
  }
};

LowerBounds ComputeLowerBounds(const Graph& graph, const Budget& budget = Budget());

}  // namespace olla
