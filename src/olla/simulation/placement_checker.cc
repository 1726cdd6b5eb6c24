#include "olla/simulation/placement_checker.h"

#include <algorithm>

#include <fmt/format.h>

#include "olla/core/bytes.h"
#include "olla/simulation/overlap.h"

namespace olla {

PlacementCheck CheckPlacement(const PlacementProblem& problem,
                              const std::vector<int64_t>& offsets,
                              std::optional<int64_t> capacity) {
  PlacementCheck check;
  if (offsets.size() != problem.buffers.size()) {
    check.error =
        fmt::format("{} offsets for {} buffers", offsets.size(), problem.buffers.size());
    return check;
  }
  for (size_t i = 0; i < offsets.size(); ++i) {
    const PlacementBuffer& b = problem.buffers[i];
    const int64_t offset = offsets[i];
    if (offset < 0 || offset % b.alignment != 0) {
      check.error = fmt::format("buffer {}: offset {} is negative or not aligned to {}",
                                b.id, offset, b.alignment);
      return check;
    }
    if (b.fixed_offset && offset != *b.fixed_offset) {
      check.error = fmt::format("buffer {}: offset {} differs from its fixed offset {}",
                                b.id, offset, *b.fixed_offset);
      return check;
    }
    const auto end = CheckedAdd(offset, b.size);
    if (!end) {
      check.error = fmt::format("buffer {}: offset {} + size overflows", b.id, offset);
      return check;
    }
    if (b.size > 0) check.arena_bytes = std::max(check.arena_bytes, *end);
  }
  if (capacity && check.arena_bytes > *capacity) {
    check.error = fmt::format("the arena of {} bytes exceeds the capacity {}",
                              check.arena_bytes, *capacity);
    return check;
  }
  if (const std::optional<Overlap> overlap = FindOverlap(problem, offsets)) {
    const PlacementBuffer& a = problem.buffers[static_cast<size_t>(overlap->first)];
    const PlacementBuffer& b = problem.buffers[static_cast<size_t>(overlap->second)];
    const int64_t oa = offsets[static_cast<size_t>(overlap->first)];
    const int64_t ob = offsets[static_cast<size_t>(overlap->second)];
    check.error = fmt::format(
        "buffers {} [{}, {}) and {} [{}, {}) share bytes while both are live at time {}",
        a.id, oa, oa + a.size, b.id, ob, ob + b.size, overlap->time);
    return check;
  }
  check.valid = true;
  return check;
}

}  // namespace olla
