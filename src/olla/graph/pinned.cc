#include "olla/graph/pinned.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <string>

namespace olla {
namespace {

// A cycle among the ops Kahn's algorithm could not order, as "op a -> op b -> op a".
// Each of them waits for another of them, so walking back through waiting
// predecessors must come round.
std::string DescribeCycle(const Graph& graph,
                          const std::vector<std::vector<OpId>>& successors,
                          const std::vector<int32_t>& waiting) {
  const size_t n = successors.size();
  std::vector<std::vector<OpId>> predecessors(n);
  for (size_t i = 0; i < n; ++i) {
    for (OpId next : successors[i])
      predecessors[next.index()].push_back(OpId(static_cast<int32_t>(i)));
  }
  OpId current(static_cast<int32_t>(
      std::find_if(waiting.begin(), waiting.end(), [](int32_t w) { return w > 0; }) -
      waiting.begin()));
  std::vector<int32_t> seen_at(n, -1);
  std::vector<OpId> path;
  while (seen_at[current.index()] < 0) {
    seen_at[current.index()] = static_cast<int32_t>(path.size());
    path.push_back(current);
    for (OpId before : predecessors[current.index()]) {
      if (waiting[before.index()] > 0) {
        current = before;
        break;
      }
    }
  }
  // path holds the cycle backwards from seen_at[current]; print it forwards.
  std::vector<OpId> cycle(path.begin() + seen_at[current.index()], path.end());
  std::reverse(cycle.begin(), cycle.end());
  std::string text;
  for (OpId op : cycle) text += graph.Describe(op) + " -> ";
  return text + graph.Describe(cycle.front());
}

}  // namespace

StatusOr<PinnedGraph> PinChains(const Graph& graph,
                                const std::vector<std::vector<OpId>>& chains) {
  const auto n = static_cast<size_t>(graph.num_ops());
  std::vector<std::vector<OpId>> successors(n);
  std::vector<PrecedenceEdge> pins;
  for (int32_t i = 0; i < graph.num_ops(); ++i) {
    for (OpId next : graph.successors(OpId(i)))
      successors[static_cast<size_t>(i)].push_back(next);
  }
  for (const std::vector<OpId>& chain : chains) {
    for (size_t i = 1; i < chain.size(); ++i) {
      successors[chain[i - 1].index()].push_back(chain[i]);
      pins.push_back({chain[i - 1], chain[i]});
    }
  }
  // Kahn's algorithm, lowest eager index first: the eager order wherever pins allow.
  std::vector<int32_t> waiting(n, 0);
  for (const auto& next : successors) {
    for (OpId op : next) ++waiting[op.index()];
  }
  std::priority_queue<int32_t, std::vector<int32_t>, std::greater<>> ready;
  for (size_t i = 0; i < n; ++i) {
    if (waiting[i] == 0) ready.push(static_cast<int32_t>(i));
  }
  std::vector<OpId> original;
  std::vector<OpId> renumbered(n);
  while (!ready.empty()) {
    const OpId op(ready.top());
    ready.pop();
    renumbered[op.index()] = OpId(static_cast<int32_t>(original.size()));
    original.push_back(op);
    for (OpId next : successors[op.index()]) {
      if (--waiting[next.index()] == 0) ready.push(next.value());
    }
  }
  if (original.size() != n) {
    return InvalidInput("the pinned order contradicts the graph's dependencies: " +
                        DescribeCycle(graph, successors, waiting));
  }
  std::vector<Op> ops;
  ops.reserve(n);
  for (OpId op : original) ops.push_back(graph.op(op));
  std::vector<PrecedenceEdge> edges;
  for (const PrecedenceEdge& edge : graph.explicit_edges())
    edges.push_back({renumbered[edge.before.index()], renumbered[edge.after.index()]});
  for (const PrecedenceEdge& edge : pins)
    edges.push_back({renumbered[edge.before.index()], renumbered[edge.after.index()]});
  OLLA_ASSIGN_OR_RETURN(
      Graph pinned, Graph::Create(graph.name(), graph.buffers(), std::move(ops), edges));
  return PinnedGraph{std::move(pinned), std::move(original)};
}

}  // namespace olla
