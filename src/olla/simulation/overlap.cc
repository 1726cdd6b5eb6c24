#include "olla/simulation/overlap.h"

#include <algorithm>
#include <map>

#include "olla/core/check.h"

namespace olla {

std::optional<Overlap> FindOverlap(const PlacementProblem& problem,
                                   const std::vector<int64_t>& offsets) {
  OLLA_CHECK(offsets.size() == problem.buffers.size(), "one offset per buffer");
  // Events (time, kind, buffer): at equal times ends (kind 0) come before starts (1),
  // since lifetimes are half-open.
  std::vector<std::tuple<int64_t, int, int32_t>> events;
  for (int32_t i = 0; i < problem.size(); ++i) {
    const PlacementBuffer& b = problem.buffers[static_cast<size_t>(i)];
    if (b.size == 0) continue;
    events.emplace_back(b.start, 1, i);
    events.emplace_back(b.end, 0, i);
  }
  std::sort(events.begin(), events.end());
  std::map<int64_t, int32_t> live;  // offset -> buffer
  auto end_of = [&](int32_t i) {
    return offsets[static_cast<size_t>(i)] + problem.buffers[static_cast<size_t>(i)].size;
  };
  for (const auto& [time, kind, i] : events) {
    const int64_t offset = offsets[static_cast<size_t>(i)];
    if (kind == 0) {
      live.erase(offset);
      continue;
    }
    auto above = live.lower_bound(offset);
    if (above != live.end() && above->first < end_of(i))
      return Overlap{i, above->second, time};
    if (above != live.begin() && end_of(std::prev(above)->second) > offset) {
      return Overlap{i, std::prev(above)->second, time};
    }
    live.emplace(offset, i);
  }
  return std::nullopt;
}

}  // namespace olla
