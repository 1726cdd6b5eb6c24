// Order: a sequence of ops, the value the schedulers produce. A *valid* order is a
// permutation of all ops that honours every precedence edge (analysis/topology.h
// checks it; simulation/plan_checker.h checks it independently for plans).
#pragma once

#include <vector>

#include "olla/core/ids.h"

namespace olla {

class Graph;

struct Order {
  std::vector<OpId> ops;  // ops[step] runs at that step.

  int32_t size() const { return static_cast<int32_t>(ops.size()); }
  bool operator==(const Order&) const = default;
};

// The order the framework would run: the graph's op order.
Order EagerOrder(const Graph& graph);

}  // namespace olla
