#include "olla/schedule/decomposition.h"

#include <algorithm>
#include <climits>

#include "olla/analysis/reachability.h"

namespace olla {
namespace {

// related[f] == free ops - 1: free op f is a cut. Exact, O(free ops^2) queries of the
// transitive closure.
std::vector<bool> CutsByClosure(const Graph& graph, const std::vector<OpId>& free_ops) {
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
  std::vector<bool> cut(static_cast<size_t>(graph.num_ops()), false);
  for (OpId op : free_ops) cut[op.index()] = related[op.index()] == others;
  return cut;
}

// A sufficient test in O(ops + edges), for graphs too large for the closure. When no
// edge passes over op c's position in the eager (topological) order, a path from an
// op before c to one at or after c enters c, so a free op before c is c's ancestor
// exactly when the furthest op it reaches is at or after c; symmetrically after c. A
// cut that an edge passes over (through an op the rules time, say) is missed, never
// invented.
std::vector<bool> CutsBySweeps(const Graph& graph, const std::vector<OpId>& free_ops) {
  const auto n = static_cast<size_t>(graph.num_ops());
  std::vector<int64_t> passing(n + 1, 0);  // Edges over each position, as differences.
  std::vector<int32_t> furthest(n), earliest(n);
  for (size_t o = n; o-- > 0;) {
    furthest[o] = static_cast<int32_t>(o);
    for (OpId next : graph.successors(OpId(static_cast<int32_t>(o)))) {
      furthest[o] = std::max(furthest[o], furthest[next.index()]);
      if (next.index() > o + 1) {
        ++passing[o + 1];
        --passing[next.index()];
      }
    }
  }
  for (size_t o = 0; o < n; ++o) {
    earliest[o] = static_cast<int32_t>(o);
    for (OpId previous : graph.predecessors(OpId(static_cast<int32_t>(o))))
      earliest[o] = std::min(earliest[o], earliest[previous.index()]);
  }
  // The least `furthest` of the free ops before each one, the largest `earliest` after.
  std::vector<bool> cut(n, false);
  std::vector<int32_t> least_furthest(free_ops.size()), largest_earliest(free_ops.size());
  int32_t least = INT32_MAX;
  for (size_t f = 0; f < free_ops.size(); ++f) {
    least_furthest[f] = least;
    least = std::min(least, furthest[free_ops[f].index()]);
  }
  int32_t largest = INT32_MIN;
  for (size_t f = free_ops.size(); f-- > 0;) {
    largest_earliest[f] = largest;
    largest = std::max(largest, earliest[free_ops[f].index()]);
  }
  int64_t over = 0;
  size_t f = 0;
  for (size_t o = 0; o < n && f < free_ops.size(); ++o) {
    over += passing[o];
    if (free_ops[f].index() != o) continue;
    const auto position = static_cast<int32_t>(o);
    cut[o] =
        over == 0 && least_furthest[f] >= position && largest_earliest[f] <= position;
    ++f;
  }
  return cut;
}

}  // namespace

std::vector<Piece> Decompose(const Graph& graph, const Timings& timings,
                             int32_t closure_ops) {
  std::vector<OpId> free_ops;
  for (int32_t i = 0; i < graph.num_ops(); ++i) {
    if (timings.free(OpId(i))) free_ops.push_back(OpId(i));
  }
  if (free_ops.empty()) return {};
  const std::vector<bool> cut = graph.num_ops() <= closure_ops
                                    ? CutsByClosure(graph, free_ops)
                                    : CutsBySweeps(graph, free_ops);
  std::vector<Piece> pieces(1);
  for (OpId op : free_ops) {
    // In eager (topological) order, a cut follows all of its piece and precedes the
    // next: every op before it is an ancestor, every op after a descendant.
    if (cut[op.index()]) {
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
