// Brute-force references for randomized tests: slow, obviously correct definitions of
// what the analyses compute fast.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "olla/graph/graph.h"
#include "olla/graph/order.h"

namespace olla::testing {

// Live bytes at every step of `order`, straight from the definition in DESIGN.md: a
// buffer is live at step t when it exists (allocated at or before t, or a graph input)
// and is still needed (used at or after t, an output, or allocated at t).
std::vector<int64_t> ReferenceLiveBytes(const Graph& graph, const Order& order);

// Calls `visit` with every valid order of `graph` (every topological order).
void ForEachValidOrder(const Graph& graph,
                       const std::function<void(const Order&)>& visit);

// The smallest peak live bytes over all valid orders.
int64_t BruteForceOptimalPeak(const Graph& graph);

// reaches[a][b]: a path leads from a to b (reflexive), by Floyd-Warshall.
std::vector<std::vector<bool>> ReferenceReachability(const Graph& graph);

}  // namespace olla::testing
