#include "olla/analysis/case_split_bound.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <vector>

#include "olla/analysis/min_cut_bound.h"
#include "olla/analysis/timeline.h"

namespace olla {
namespace {

class Dive {
 public:
  Dive(const Graph& graph, const std::vector<int32_t>& position, int64_t bound,
       int64_t target, const Budget& budget, CaseSplitResult& result)
      : graph_(graph),
        position_(position),
        bound_(bound),
        target_(target),
        budget_(budget),
        result_(result) {}

  // The bound proved at w, and the splits that proved it.
  std::pair<int64_t, int32_t> At(OpId w) {
    std::vector<PrecedenceEdge> assumed;
    int64_t current = std::max(bound_, Cut(w, assumed));
    int64_t closed = INT64_MAX;  // The smallest closed leaf.
    int32_t splits = 0;
    while (current < target_ && current < closed) {
      const Split split = BestSplit(w, assumed, current);
      if (split.weaker <= current) break;  // No split raises this case.
      assumed.push_back(split.weaker_case);
      closed = std::min(closed, split.stronger);
      current = split.weaker;
      ++splits;
      if (budget_.Exhausted()) break;
    }
    return {std::min(current, closed), splits};
  }

 private:
  struct Split {
    int64_t weaker = 0;  // The two cases' values, smaller first.
    int64_t stronger = 0;
    PrecedenceEdge weaker_case;
  };

  // The max of the bound so far and the cut at `op` under `assumed`; one work unit.
  int64_t Cut(OpId op, const std::vector<PrecedenceEdge>& assumed) {
    budget_.Spend();
    ++result_.cuts;
    return std::max(bound_, MinCutLiveBytes(graph_, op, assumed));
  }

  // The case's value, the larger cut at w and at u, when it is above `floor` (else
  // `floor`: the second cut is skipped when the first settles it).
  int64_t CaseValue(OpId w, OpId u, std::vector<PrecedenceEdge>& assumed,
                    PrecedenceEdge edge, int64_t floor) {
    assumed.push_back(edge);
    int64_t value = Cut(w, assumed);
    if (value <= floor) value = std::max(value, Cut(u, assumed));
    assumed.pop_back();
    return std::max(value, floor);
  }

  // Over the ops unrelated to w, nearest to it in the incumbent first: the split whose
  // weaker case is strongest (the first that reaches the target ends the search).
  Split BestSplit(OpId w, std::vector<PrecedenceEdge>& assumed, int64_t current) {
    std::vector<OpId> candidates = UnrelatedOps(graph_, w, assumed);
    auto distance = [&](OpId u) {
      return std::abs(position_[u.index()] - position_[w.index()]);
    };
    std::stable_sort(candidates.begin(), candidates.end(),
                     [&](OpId a, OpId b) { return distance(a) < distance(b); });
    Split best;
    best.weaker = current;
    for (OpId u : candidates) {
      if (budget_.Exhausted()) break;
      const PrecedenceEdge before{u, w};
      const PrecedenceEdge after{w, u};
      // Only a split whose both cases are above the best so far can replace it.
      const int64_t if_before = CaseValue(w, u, assumed, before, best.weaker);
      if (if_before <= best.weaker) continue;
      const int64_t if_after = CaseValue(w, u, assumed, after, best.weaker);
      const int64_t weaker = std::min(if_before, if_after);
      if (weaker > best.weaker) {
        best = {weaker, std::max(if_before, if_after),
                if_before <= if_after ? before : after};
        if (weaker >= target_) break;
      }
    }
    return best;
  }

  const Graph& graph_;
  const std::vector<int32_t>& position_;
  const int64_t bound_;
  const int64_t target_;
  const Budget& budget_;
  CaseSplitResult& result_;
};

}  // namespace

CaseSplitResult CaseSplitBound(const Graph& graph, const Order& incumbent, int64_t bound,
                               int64_t target, const Budget& budget) {
  CaseSplitResult result;
  result.bound_bytes = bound;
  const std::vector<int64_t> live = LiveBytesByOp(graph, incumbent);
  std::vector<int32_t> position(static_cast<size_t>(graph.num_ops()));
  for (int32_t s = 0; s < incumbent.size(); ++s)
    position[incumbent.ops[static_cast<size_t>(s)].index()] = s;
  Dive dive(graph, position, bound, target, budget, result);
  for (const OpId w : incumbent.ops) {
    if (result.bound_bytes >= target || budget.Exhausted()) break;
    if (live[w.index()] < target) continue;
    const auto [proved, splits] = dive.At(w);
    if (proved > result.bound_bytes) {
      result.bound_bytes = proved;
      result.splits = splits;
    }
  }
  return result;
}

}  // namespace olla
