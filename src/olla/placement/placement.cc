#include "olla/placement/placement.h"

#include <algorithm>

namespace olla {

int64_t ArenaOf(const PlacementProblem& problem, const std::vector<int64_t>& offsets) {
  int64_t arena = 0;
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    if (problem.buffers[i].size > 0)
      arena = std::max(arena, offsets[i] + problem.buffers[i].size);
  }
  return arena;
}

}  // namespace olla
