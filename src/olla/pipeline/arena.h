// The arena of an order: what placement must solve for a graph, the plan a placement
// makes, and the place step that joins them.
//
// MakeArenaProblem turns a graph and an order into a bare placement problem. Each
// non-persistent buffer becomes a row with its lifetime under the order (the half-open
// step interval of analysis/lifetimes.h) and its size rounded up to the alignment, as
// PyTorch's allocator rounds every block; each op with workspace becomes a row live at
// its step only. Rounding first matters: the problem's live-bytes bound is then over
// the rounded sizes, so a placement at it is recognised as optimal at once (over raw
// sizes the bound is never reached at 512-byte alignment). Zero-size buffers take no
// bytes and stay zero. Cost: O(ops + buffers + uses).
#pragma once

#include <cstdint>
#include <vector>

#include "olla/core/budget.h"
#include "olla/core/ids.h"
#include "olla/core/status.h"
#include "olla/graph/graph.h"
#include "olla/graph/order.h"
#include "olla/placement/place.h"
#include "olla/placement/placement.h"
#include "olla/placement/problem.h"
#include "olla/plan/plan.h"

namespace olla {

struct ArenaProblem {
  PlacementProblem problem;
  // What row i of the problem places: graph buffer `buffer[i]`, or (when that is
  // invalid) the workspace of op `workspace_of[i]`.
  std::vector<BufferId> buffer;
  std::vector<OpId> workspace_of;
  int64_t alignment = 1;
  // The problem's live-bytes bound: no arena for this order (rounded sizes included)
  // is smaller.
  int64_t least_bytes = 0;
};

// `order` must be valid for `graph`. An error when a size rounded up to `alignment` no
// longer fits in 63 bits, or the alignment is not positive.
StatusOr<ArenaProblem> MakeArenaProblem(const Graph& graph, const Order& order,
                                        int64_t alignment);

// The plan that runs `order` with the arena's rows at `placement`'s offsets. Its arena is
// the placement's (rounded sizes included); the checker still decides its validity.
Plan MakePlan(const Graph& graph, const Order& order, const ArenaProblem& arena,
              const Placement& placement);

// The place step: the arena's rows placed (placement/place.h) within `budget`, and the
// plan they make. An internal error when placement rejects the problem (a valid order
// and valid options make a valid one).
struct PlacedArena {
  Plan plan;
  Placement placement;
};
StatusOr<PlacedArena> PlaceArena(const Graph& graph, const Order& order,
                                 const ArenaProblem& arena, const PlaceOptions& options,
                                 const Budget& budget);

}  // namespace olla
