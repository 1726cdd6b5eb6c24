// Random scheduling problems for the schedule tests: random DAGs
// (generators/synthetic.h), optionally with some ops turned into optimizer updates, and
// random valid orders.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "olla/generators/synthetic.h"
#include "olla/graph/graph.h"
#include "olla/graph/order.h"

namespace olla::testing {

// A random DAG of `ops` ops; each op is an optimizer update with `optimizer_chance`.
inline Graph RandomScheduleGraph(int32_t ops, uint64_t seed,
                                 double optimizer_chance = 0.0) {
  RandomDagOptions options;
  options.ops = ops;
  options.seed = seed;
  const Graph graph = RandomDag(options);
  std::mt19937_64 rng(seed * 7919 + 1);
  std::vector<Op> changed = graph.ops();
  for (Op& op : changed) {
    if (std::uniform_real_distribution<double>(0, 1)(rng) < optimizer_chance)
      op.phase = Phase::kOptimizer;
  }
  StatusOr<Graph> result =
      Graph::Create(graph.name(), graph.buffers(), changed, graph.explicit_edges());
  OLLA_CHECK(result.ok(), result.status().message());
  return std::move(result).value();
}

// A uniformly random choice among the ready ops at every step.
inline Order RandomValidOrder(const Graph& graph, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int32_t> waiting(static_cast<size_t>(graph.num_ops()));
  std::vector<OpId> ready;
  for (int32_t i = 0; i < graph.num_ops(); ++i) {
    waiting[static_cast<size_t>(i)] =
        static_cast<int32_t>(graph.predecessors(OpId(i)).size());
    if (waiting[static_cast<size_t>(i)] == 0) ready.push_back(OpId(i));
  }
  Order order;
  while (!ready.empty()) {
    const size_t pick = std::uniform_int_distribution<size_t>(0, ready.size() - 1)(rng);
    const OpId op = ready[pick];
    ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(pick));
    order.ops.push_back(op);
    for (OpId next : graph.successors(op)) {
      if (--waiting[next.index()] == 0) ready.push_back(next);
    }
  }
  return order;
}

}  // namespace olla::testing
