// The min-cut lower bound: at an op v, the fewest bytes live when v runs over every
// order, computed as a minimum cut.
//
// Forced-live (lower_bounds.h) counts what is live at v because of v's ancestors and
// descendants alone. It misses pairs such as a SiLU backward chain that does not
// depend on the loss: either its saved input or the term it derives is live when v
// runs, but neither is forced alone (efficientnet_b0: 24.4 MB at its peak op). The
// min-cut bound minimises over every set S of ops already run when v runs (closed
// under dependencies, holding v's ancestors, none of v's descendants): over the ops
// unrelated to v, a source side (run) and a sink side (not yet), an infinite edge from
// each op to each predecessor (an op runs only after them), and per buffer a node fed
// by its producer with the buffer's size and draining into its users with infinite
// capacity, so that a buffer whose producer ran and one of whose users did not is
// cut. The max flow (LEMON's Preflow) plus what v's ancestors and
// descendants force is the bound at v: never below forced-live, and, minimised over
// every S, never above the live bytes at v of any order.
//
// Cost per op: O(ops + edges + uses) to build, plus the flow on the ops unrelated to v.
// MinCutBound computes it only at ops where an order (the incumbent) is above the bound
// so far, largest first, within a budget.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "olla/core/budget.h"
#include "olla/graph/graph.h"

namespace olla {

// The fewest bytes live when `op` runs, over every order (its workspace included) that
// also runs each `assumed` edge's `before` op before its `after` op (a case of a case
// split, case_split_bound.h). The assumed edges must not close a cycle.
int64_t MinCutLiveBytes(const Graph& graph, OpId op,
                        std::span<const PrecedenceEdge> assumed = {});

// The flow network of the cut at `op` (built by MinCutLiveBytes; apart for the max-flow
// benchmark, bench/max_flow_bench.cc): the bound is `forced` plus its max flow.
struct CutNetwork {
  static constexpr int32_t kSource = 0;  // Ops already run.
  static constexpr int32_t kSink = 1;    // Ops not run yet.
  struct Edge {
    int32_t from, to;
    int64_t capacity;
  };
  int64_t forced = 0;  // Bytes live at the op in every order, outside the network.
  int32_t vertices = 2;
  std::vector<Edge> edges;
};
CutNetwork BuildCutNetwork(const Graph& graph, OpId op,
                           std::span<const PrecedenceEdge> assumed = {});
// LEMON's Preflow (push-relabel, first phase only): about ten times faster on these
// networks than Boost.Graph's push-relabel and six times its Boykov-Kolmogorov
// (bench/results/max_flow.md).
int64_t MaxFlow(const CutNetwork& network);

// The ops neither ancestors nor descendants of `op` under the graph's precedence and the
// `assumed` edges: those that may run before or after it.
std::vector<OpId> UnrelatedOps(const Graph& graph, OpId op,
                               std::span<const PrecedenceEdge> assumed = {});

struct MinCutResult {
  int64_t bound_bytes = 0;  // The largest bound known: forced-live's or a cut's.
  OpId op;                  // Where a cut raised it (invalid when none did).
  int32_t ops_computed = 0;
  bool complete = false;  // Every op that could raise the bound was computed.
};

// Raises `bound` (the forced-live bound, say) with cuts at the ops where `live_bytes`
// (an order's live bytes per op, LiveBytesByOp: the cut at an op never exceeds them)
// is above it, in decreasing order of live_bytes, until the bound reaches `target`
// (the incumbent's peak: then proven optimal) or the budget's clock runs out.
MinCutResult MinCutBound(const Graph& graph, const std::vector<int64_t>& live_bytes,
                         int64_t bound, int64_t target, const Budget& budget);

}  // namespace olla
