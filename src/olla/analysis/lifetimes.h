// Lifetimes: the half-open step interval [start, end) in which each buffer is live
// under a given order.
//
// A buffer allocated by op v lives from step(v) to one past its last use (at least
// step(v) + 1: an unused output is still allocated while v runs). A non-persistent
// buffer that no op allocates (a graph input) lives from step 0. Graph outputs live to
// the end of the order. Persistent buffers are outside the arena: their interval is
// empty. Cost: O(ops + uses).
#pragma once

#include <vector>

#include "olla/graph/graph.h"
#include "olla/graph/order.h"

namespace olla {

struct Lifetime {
  int32_t start = 0;
  int32_t end = 0;  // Exclusive.

  bool empty() const { return end <= start; }
  bool Contains(int32_t step) const { return start <= step && step < end; }
  bool operator==(const Lifetime&) const = default;
};

struct Lifetimes {
  std::vector<Lifetime> of;  // Indexed by BufferId.

  const Lifetime& operator[](BufferId id) const { return of[id.index()]; }
};

// `order` must be valid for `graph` (CheckValidOrder).
Lifetimes ComputeLifetimes(const Graph& graph, const Order& order);

}  // namespace olla
