#include "olla/analysis/topology.h"

#include <algorithm>

#include <fmt/format.h>

namespace olla {

std::vector<int32_t> StepsOf(const Graph& graph, const Order& order) {
  std::vector<int32_t> step(static_cast<size_t>(graph.num_ops()), -1);
  for (int32_t s = 0; s < order.size(); ++s)
    step[order.ops[static_cast<size_t>(s)].index()] = s;
  return step;
}

Status CheckValidOrder(const Graph& graph, const Order& order) {
  if (order.size() != graph.num_ops()) {
    return InvalidInput(
        fmt::format("order has {} ops, graph has {}", order.size(), graph.num_ops()));
  }
  std::vector<int32_t> step(static_cast<size_t>(graph.num_ops()), -1);
  for (int32_t s = 0; s < order.size(); ++s) {
    OpId op = order.ops[static_cast<size_t>(s)];
    if (!op.valid() || op.value() >= graph.num_ops()) {
      return InvalidInput(fmt::format("order step {} names an op out of range", s));
    }
    if (step[op.index()] >= 0) {
      return InvalidInput(fmt::format("order runs {} twice (steps {} and {})",
                                      graph.Describe(op), step[op.index()], s));
    }
    step[op.index()] = s;
  }
  for (int32_t o = 0; o < graph.num_ops(); ++o) {
    for (OpId next : graph.successors(OpId(o))) {
      if (step[next.index()] < step[static_cast<size_t>(o)]) {
        return InvalidInput(fmt::format(
            "order runs {} (step {}) before {} (step {})", graph.Describe(next),
            step[next.index()], graph.Describe(OpId(o)), step[static_cast<size_t>(o)]));
      }
    }
  }
  return OkStatus();
}

Levels ComputeLevels(const Graph& graph) {
  const auto n = static_cast<size_t>(graph.num_ops());
  Levels levels;
  levels.asap.assign(n, 0);
  // Ops are stored in a topological (eager) order, so one forward and one backward
  // sweep suffice.
  for (int32_t o = 0; o < graph.num_ops(); ++o) {
    for (OpId prev : graph.predecessors(OpId(o))) {
      levels.asap[static_cast<size_t>(o)] =
          std::max(levels.asap[static_cast<size_t>(o)], levels.asap[prev.index()] + 1);
    }
    levels.critical_path_length =
        std::max(levels.critical_path_length, levels.asap[static_cast<size_t>(o)] + 1);
  }
  levels.alap.assign(n, levels.critical_path_length - 1);
  for (int32_t o = graph.num_ops() - 1; o >= 0; --o) {
    for (OpId next : graph.successors(OpId(o))) {
      levels.alap[static_cast<size_t>(o)] =
          std::min(levels.alap[static_cast<size_t>(o)], levels.alap[next.index()] - 1);
    }
  }
  return levels;
}

}  // namespace olla
