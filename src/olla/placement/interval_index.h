// IntervalIndex: which of a set of buffers' half-open lifetimes overlap a query
// interval, among the buffers made active so far.
//
// The buffers are sorted by start and a segment tree keeps the largest end among the
// active buffers of each range, so a query visits only subtrees that hold an active
// overlapping buffer: O(log n + k log n) for k answers. Activation is O(log n); memory
// O(n). Placement activates buffers as it places them, so each query sees only the
// buffers already placed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "olla/placement/problem.h"

namespace olla {

class IntervalIndex {
 public:
  // With `all_active`, every buffer starts active; otherwise none does.
  IntervalIndex(const PlacementProblem& problem, bool all_active);

  void Activate(int32_t buffer);

  // Calls `visit(i)` for every active buffer i (index into problem.buffers) whose
  // lifetime overlaps [start, end), in increasing order of start.
  template <typename Visitor>
  void ForEachOverlapping(int64_t start, int64_t end, Visitor&& visit) const {
    // Candidates start before `end`: a prefix of the sorted positions.
    const auto limit = static_cast<size_t>(
        std::lower_bound(starts_.begin(), starts_.end(), end) - starts_.begin());
    if (limit == 0) return;
    // An explicit stack replaces recursion: this is the placers' innermost loop.
    struct Range {
      size_t node, lo, hi;
    };
    Range stack[2 * 64];
    int top = 0;
    stack[top++] = {1, 0, leaves_};
    while (top > 0) {
      const Range r = stack[--top];
      if (r.lo >= limit || max_end_[r.node] <= start) continue;
      if (r.hi - r.lo == 1) {
        visit(by_start_[r.lo]);
        continue;
      }
      const size_t mid = (r.lo + r.hi) / 2;
      stack[top++] = {2 * r.node + 1, mid, r.hi};  // Popped second: starts stay sorted.
      stack[top++] = {2 * r.node, r.lo, mid};
    }
  }

 private:
  std::vector<int32_t> by_start_;  // Buffer indices sorted by (start, index).
  std::vector<size_t> position_;   // position_[buffer] = its place in by_start_.
  std::vector<int64_t> starts_;    // starts_[k] = start of by_start_[k].
  std::vector<int64_t> ends_;      // ends_[k] = end of by_start_[k].
  size_t leaves_ = 1;              // A power of two >= n; leaf k is node leaves_ + k.
  std::vector<int64_t> max_end_;   // Largest end of an active buffer below each node.
};

}  // namespace olla
