#include "olla/graph/cycle.h"

#include <algorithm>
#include <cstdint>

#include "olla/graph/graph.h"

namespace olla {

std::vector<OpId> FindCycle(const Graph& graph) {
  enum Color : uint8_t { kWhite, kOnStack, kDone };
  const auto n = static_cast<size_t>(graph.num_ops());
  std::vector<Color> color(n, kWhite);
  std::vector<OpId> parent(n);
  // Each frame is an op and the index of the next successor to visit.
  std::vector<std::pair<OpId, size_t>> stack;
  for (int32_t root = 0; root < graph.num_ops(); ++root) {
    if (color[static_cast<size_t>(root)] != kWhite) continue;
    stack.emplace_back(OpId(root), 0);
    color[static_cast<size_t>(root)] = kOnStack;
    while (!stack.empty()) {
      auto& [op, next_index] = stack.back();
      auto successors = graph.successors(op);
      if (next_index == successors.size()) {
        color[op.index()] = kDone;
        stack.pop_back();
        continue;
      }
      OpId next = successors[next_index++];
      if (color[next.index()] == kWhite) {
        color[next.index()] = kOnStack;
        parent[next.index()] = op;
        stack.emplace_back(next, 0);
      } else if (color[next.index()] == kOnStack) {
        // Walk parents back from `op` to `next` to recover the cycle.
        std::vector<OpId> cycle{op};
        while (cycle.back() != next) cycle.push_back(parent[cycle.back().index()]);
        std::reverse(cycle.begin(), cycle.end());
        return cycle;
      }
    }
  }
  return {};
}

}  // namespace olla
