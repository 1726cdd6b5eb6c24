// Lower bounds on the peak live bytes of every valid order of a graph.
//
// - Single-op footprint: op v's inputs, outputs and workspace are live together when v
//   runs, whatever the order.
// - Forced-live set: when v runs, every buffer allocated by v or an ancestor of v (or a
//   graph input, live from step 0) that is used by v or a descendant of v (or is a
//   graph output) must be live, whatever the order. It contains the footprint.
// Persistent buffers are excluded, as from the timeline. The bound of a graph is the
// larger of the two maxima over ops.
// Cost: footprints O(uses); forced-live O(ops/64 * (ops + edges + uses)) time and
// O(ops + buffers) memory (reachability.h, SweepReachBlock).
#pragma once

#include <cstdint>
#include <vector>

#include "olla/graph/graph.h"

namespace olla {

// Bytes of each op's inputs, outputs and workspace (distinct buffers counted once).
std::vector<int64_t> SingleOpFootprints(const Graph& graph);

// Bytes forced live at each op, as defined above, including its workspace.
std::vector<int64_t> ForcedLiveBytes(const Graph& graph);

struct LowerBounds {
  int64_t single_op_bytes = 0;
  OpId single_op;  // An op attaining it (the lowest id).
  int64_t forced_live_bytes = 0;
  OpId forced_live_op;
  // ForcedLiveBytes(graph), kept: the schedule's exact search prunes with it, and it is
  // the costly part of the bounds.
  std::vector<int64_t> forced_live;

  int64_t best() const {
    return single_op_bytes > forced_live_bytes ? single_op_bytes : forced_live_bytes;
  }
};

LowerBounds ComputeLowerBounds(const Graph& graph);

}  // namespace olla
