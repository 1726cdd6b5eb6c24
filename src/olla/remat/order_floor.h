// The order's floor: the least peak of every plan that keeps an order of the graph's
// ops and recomputes as budget mode's search does (recomputable.h: a dropped buffer's
// copies serve its late readers, made by any number of runs of its producer).
//
// In every such plan, at the step of a graph op, every buffer live there in the order
// stays live (as itself or a copy) unless it is dropped, the step lies after its last
// early reader, and the op there does not read it (with a copy for each reader, a
// dropped buffer need exist only where it is read); copies and the inputs runs keep
// alive only add bytes. So at each step the live bytes less every droppable buffer
// that may be freed there are kept in every plan; the floor is the largest over the
// steps. Where the floors of every order (recompute_floor.h) only know what some op
// must hold, this knows what the order itself keeps live: on Checkmate's ResNet50 it
// is the smallest arena the search reaches, 11 % above the floor of every plan.
// order_floor_proof.h raises it by what later steps read; added_cost_bound.h prices
// reaching a target above it.
//
// Cost: O(ops + uses).
#pragma once

#include <cstdint>
#include <vector>

#include "olla/analysis/lifetimes.h"
#include "olla/analysis/timeline.h"
#include "olla/graph/graph.h"
#include "olla/graph/order.h"
#include "olla/remat/recomputable.h"

namespace olla {

// A droppable buffer as plans on the order may free it: absent at the steps after
// `after` (its producer's, or its last early reader's) and before `end` (its
// lifetime's), but at `reads`, its late readers' steps (they read it or a copy).
struct FreeSpan {
  BufferId buffer;
  OpId producer;
  int64_t size = 0;
  int32_t after = 0;
  int32_t end = 0;
  std::vector<int32_t> reads;  // Ascending, once each.
};

// By producer, then as each op allocates them.
std::vector<FreeSpan> FreeSpans(const Graph& graph, const Order& order,
                                const Lifetimes& lifetimes,
                                const RecomputableBuffers& buffers);

// At each step, the bytes live there in every plan on the order: the live bytes
// (workspace included) less all the spans free there.
std::vector<int64_t> KeptBytes(const MemoryTimeline& timeline,
                               const std::vector<FreeSpan>& spans);

// The least peak of every plan on the order, and the first step where it is live.
struct OrderFloor {
  int64_t bytes = 0;
  int32_t step = 0;
};

// The largest of `kept` (KeptBytes), at its first step.
OrderFloor FloorOf(const std::vector<int64_t>& kept);

OrderFloor ComputeOrderFloor(const Graph& graph, const Order& order);

}  // namespace olla
