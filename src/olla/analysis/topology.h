// Topological structure of a graph's precedence: order validity and ASAP/ALAP levels.
//
// Levels: asap[v] is the length of the longest precedence path that ends at v (sources
// are at level 0); alap[v] is the latest level v can take without lengthening the
// critical path, whose length (in levels) is critical_path_length. Every op can run
// at any level in [asap, alap]. Cost: O(ops + edges).
#pragma once

#include <vector>

#include "olla/core/status.h"
#include "olla/graph/graph.h"
#include "olla/graph/order.h"

namespace olla {

// Ok when `order` is a permutation of all ops honouring every precedence edge;
// otherwise an error naming the first problem found.
Status CheckValidOrder(const Graph& graph, const Order& order);

struct Levels {
  std::vector<int32_t> asap;
  std::vector<int32_t> alap;
  int32_t critical_path_length = 0;  // Number of levels: max asap + 1.
};

Levels ComputeLevels(const Graph& graph);

// step[op] = position of op in `order`. `order` must be a permutation of all ops.
std::vector<int32_t> StepsOf(const Graph& graph, const Order& order);

}  // namespace olla
