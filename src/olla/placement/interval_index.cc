#include "olla/placement/interval_index.h"

#include <numeric>

namespace olla {

IntervalIndex::IntervalIndex(const PlacementProblem& problem, bool all_active) {
  const auto n = problem.buffers.size();
  by_start_.resize(n);
  std::iota(by_start_.begin(), by_start_.end(), 0);
  std::sort(by_start_.begin(), by_start_.end(), [&](int32_t a, int32_t b) {
    const int64_t sa = problem.buffers[static_cast<size_t>(a)].start;
    const int64_t sb = problem.buffers[static_cast<size_t>(b)].start;
    return sa != sb ? sa < sb : a < b;
  });
  position_.resize(n);
  starts_.resize(n);
  ends_.resize(n);
  for (size_t k = 0; k < n; ++k) {
    position_[static_cast<size_t>(by_start_[k])] = k;
    starts_[k] = problem.buffers[static_cast<size_t>(by_start_[k])].start;
    ends_[k] = problem.buffers[static_cast<size_t>(by_start_[k])].end;
  }
  while (leaves_ < n) leaves_ *= 2;
  max_end_.assign(2 * leaves_, INT64_MIN);
  if (all_active) {
    std::copy(ends_.begin(), ends_.end(),
              max_end_.begin() + static_cast<ptrdiff_t>(leaves_));
    for (size_t node = leaves_ - 1; node >= 1; --node) {
      max_end_[node] = std::max(max_end_[2 * node], max_end_[2 * node + 1]);
    }
  }
}

void IntervalIndex::Activate(int32_t buffer) {
  const size_t k = position_[static_cast<size_t>(buffer)];
  for (size_t node = leaves_ + k; node >= 1; node /= 2) {
    if (max_end_[node] >= ends_[k]) break;  // Ancestors already cover this end.
    max_end_[node] = ends_[k];
  }
}

}  // namespace olla
