// SimulateEager: what running a graph eagerly costs, the baseline olla must beat.
//
// Replays the eager order with an ideal allocator (free at last use: the peak live
// bytes) and through the caching-allocator model (reserved bytes and fragmentation),
// and computes the lower bounds every order must respect.
// Cost: dominated by the forced-live bound (analysis/lower_bounds.h).
#pragma once

#include <cstdint>
#include <string>

#include "olla/analysis/lower_bounds.h"
#include "olla/core/budget.h"
#include "olla/graph/graph.h"
#include "olla/simulation/allocator_replay.h"

namespace olla {

struct EagerReport {
  std::string graph_name;
  int32_t ops = 0;
  int32_t buffers = 0;
  int32_t persistent_buffers = 0;
  int64_t persistent_bytes = 0;
  int64_t edges = 0;
  int32_t critical_path_length = 0;

  int64_t peak_live_bytes = 0;  // Ideal allocator, eager order.
  int32_t peak_step = 0;
  OpId peak_op;

  AllocatorReplay allocator;  // Caching-allocator model, eager order.
  LowerBounds bounds;
};

// The bounds' costly part (the forced-live set) stops at the budget's deadline with
// what it has (analysis/lower_bounds.h); everything else is linear and always done.
EagerReport SimulateEager(const Graph& graph, const Budget& budget = Budget());

}  // namespace olla
