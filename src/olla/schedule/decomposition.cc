#include "olla/schedule/decomposition.h"

#include <bit>

#include "olla/analysis/reachability.h"

namespace olla {

std::vector<Piece> Decompose(const Graph& graph, const Timings& timings) {
  std::vector<OpId> free_ops;
  for (int32_t i = 0; i < graph.num_ops(); ++i) {
    if (timings.free(OpId(i))) free_ops.push_back(OpId(i));
  }
  if (free_ops.empty()) return {};
  if (graph.num_ops() > Reachability::kMaxMatrixOps) return {Piece{free_ops, false}};

  // related[f] counts the free ops that are ancestors or descendants of free op f.
  const Reachability reach(graph);
  std::vector<int32_t> related(static_cast<size_t>(graph.num_ops()), 0);
  for (size_t i = 0; i < free_ops.size(); ++i) {
    for (size_t j = i + 1; j < free_ops.size(); ++j) {
      // Ops are in topological order: only the lower id can reach the higher.
      if (reach.Reaches(free_ops[i], free_ops[j])) {
        ++related[free_ops[i].index()];
        ++related[free_ops[j].index()];
      }
    }
  }
  const auto others = static_cast<int32_t>(free_ops.size()) - 1;
  std::vector<Piece> pieces(1);
  for (OpId op : free_ops) {
    // In eager (topological) order, a cut follows all of its piece and precedes the
    // next: every op before it is an ancestor, every op after a descendant.
    if (related[op.index()] == others) {
      if (!pieces.back().free_ops.empty()) pieces.emplace_back();
      pieces.back() = Piece{{op}, true};
      pieces.emplace_back();
    } else {
      pieces.back().free_ops.push_back(op);
    }
  }
  if (pieces.back().free_ops.empty()) pieces.pop_back();
  return pieces;
}

}  // namespace olla
