#include "olla/analysis/reachability.h"

#include <algorithm>

namespace olla {

Reachability::Reachability(const Graph& graph, int32_t max_matrix_ops) : graph_(&graph) {
  const int32_t n = graph.num_ops();
  if (n > max_matrix_ops) {
    visited_epoch_.assign(static_cast<size_t>(n), 0);
    return;
  }
  words_per_row_ = (static_cast<size_t>(n) + 63) / 64;
  descendants_.assign(words_per_row_ * static_cast<size_t>(n), 0);
  // Reverse topological order: a row is its own bit OR its successors' rows.
  for (int32_t o = n - 1; o >= 0; --o) {
    uint64_t* row = &descendants_[words_per_row_ * static_cast<size_t>(o)];
    row[o / 64] |= uint64_t{1} << (o % 64);
    for (OpId next : graph.successors(OpId(o))) {
      const uint64_t* next_row = &descendants_[words_per_row_ * next.index()];
      // Descendants of `next` have ids >= next, so earlier words are zero.
      for (size_t w = next.index() / 64; w < words_per_row_; ++w) row[w] |= next_row[w];
    }
  }
}

bool Reachability::Reaches(OpId from, OpId to) const {
  if (from == to) return true;
  if (from.value() > to.value()) return false;
  if (has_matrix()) {
    return (descendants_[words_per_row_ * from.index() + to.index() / 64] >>
            (to.index() % 64)) &
           1;
  }
  if (++epoch_ == 0) {  // Wrapped: clear marks once every 2^32 queries.
    std::fill(visited_epoch_.begin(), visited_epoch_.end(), 0);
    epoch_ = 1;
  }
  stack_.assign(1, from);
  visited_epoch_[from.index()] = epoch_;
  while (!stack_.empty()) {
    const OpId op = stack_.back();
    stack_.pop_back();
    for (OpId next : graph_->successors(op)) {
      if (next == to) return true;
      if (next.value() > to.value() || visited_epoch_[next.index()] == epoch_) continue;
      visited_epoch_[next.index()] = epoch_;
      stack_.push_back(next);
    }
  }
  return false;
}

TargetMask TargetMask::FirstBits(int32_t count) {
  TargetMask mask;
  for (int32_t w = 0; w < kWords; ++w) {
    const int32_t bits = std::clamp(count - 64 * w, 0, 64);
    mask.words[static_cast<size_t>(w)] =
        bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  }
  return mask;
}

void SweepReachBlock(const Graph& graph, int32_t first, int32_t count,
                     ReachBlock& block) {
  OLLA_CHECK(count > 0 && count <= TargetMask::kBits,
             "a reach block holds 1 to 256 targets");
  const int32_t n = graph.num_ops();
  const int32_t last = first + count - 1;
  block.first = first;
  block.count = count;
  block.reaches_target.assign(static_cast<size_t>(n), TargetMask());
  block.reached_from_target.assign(static_cast<size_t>(n), TargetMask());
  // Ancestors of the targets have ids <= last; descendants have ids >= first.
  for (int32_t o = last; o >= 0; --o) {
    TargetMask mask = block.SelfBit(OpId(o));
    for (OpId next : graph.successors(OpId(o))) {
      if (next.value() <= last) mask |= block.reaches_target[next.index()];
    }
    block.reaches_target[static_cast<size_t>(o)] = mask;
  }
  for (int32_t o = first; o < n; ++o) {
    TargetMask mask = block.SelfBit(OpId(o));
    for (OpId prev : graph.predecessors(OpId(o))) {
      if (prev.value() >= first) mask |= block.reached_from_target[prev.index()];
    }
    block.reached_from_target[static_cast<size_t>(o)] = mask;
  }
}

}  // namespace olla
