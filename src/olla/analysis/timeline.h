// MemoryTimeline: the live bytes at every step of an order, and its peak.
//
// At the step of op v, the live set is every non-persistent buffer whose lifetime
// contains the step (so v's inputs and outputs are co-resident) plus v's workspace.
// This is what an ideal allocator that frees at last use would need. Persistent bytes
// are a constant reported separately. Cost: O(ops + buffers) with a difference array.
#pragma once

#include <cstdint>
#include <vector>

#include "olla/analysis/lifetimes.h"
#include "olla/graph/graph.h"
#include "olla/graph/order.h"

namespace olla {

struct MemoryTimeline {
  std::vector<int64_t> live_bytes;  // live_bytes[step]
  int64_t peak_bytes = 0;
  int32_t peak_step = 0;  // The first step at which the peak is reached.
  OpId peak_op;           // The op that runs at peak_step.
};

MemoryTimeline ComputeTimeline(const Graph& graph, const Order& order,
                               const Lifetimes& lifetimes);

// The live bytes when each op runs in `order`, indexed by op (the timeline by step,
// mapped through the order): an upper bound at each op on what any bound can prove.
std::vector<int64_t> LiveBytesByOp(const Graph& graph, const Order& order);

}  // namespace olla
