// FindCycle: one directed cycle of a graph's precedence, for error messages.
// Returns the ops on the cycle in edge order, or an empty vector when the precedence
// is acyclic. Iterative depth-first search: O(ops + edges), no recursion depth limit.
#pragma once

#include <vector>

#include "olla/core/ids.h"

namespace olla {

class Graph;

std::vector<OpId> FindCycle(const Graph& graph);

}  // namespace olla
