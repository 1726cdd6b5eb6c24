#include "olla/placement/problem.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "olla/core/bytes.h"
#include "olla/core/limits.h"

namespace olla {

Status ValidatePlacementProblem(const PlacementProblem& problem) {
  int64_t total = 0;
  for (const PlacementBuffer& b : problem.buffers) {
    if (b.start >= b.end) {
      return InvalidInput(
          fmt::format("buffer {}: lifetime [{}, {}) is empty (lower must be "
                      "below upper)",
                      b.id, b.start, b.end));
    }
    if (b.size < 0)
      return InvalidInput(fmt::format("buffer {}: negative size {}", b.id, b.size));
    if (b.alignment <= 0 || b.alignment > kMaxAlignment) {
      return InvalidInput(
          fmt::format("buffer {}: alignment {} is not in [1, 2^30]", b.id, b.alignment));
    }
    if (b.start < -kMaxTime || b.end > kMaxTime) {
      return InvalidInput(fmt::format(
          "buffer {}: lifetime [{}, {}) is outside [-2^61, 2^61]", b.id, b.start, b.end));
    }
    const auto sum = CheckedAdd(total, b.size);
    if (!sum || *sum > kMaxTotalBytes) {
      return InvalidInput(fmt::format("buffer {}: sizes exceed 2^62 bytes in all", b.id));
    }
    total = *sum;
    if (b.fixed_offset) {
      if (*b.fixed_offset < 0 || *b.fixed_offset % b.alignment != 0) {
        return InvalidInput(
            fmt::format("buffer {}: fixed offset {} is negative or not "
                        "aligned to {}",
                        b.id, *b.fixed_offset, b.alignment));
      }
      if (*b.fixed_offset > kMaxTotalBytes - b.size) {
        return InvalidInput(
            fmt::format("buffer {}: fixed offset + size exceeds 2^62", b.id));
      }
    }
  }
  return OkStatus();
}

Status AlignAll(PlacementProblem& problem, int64_t alignment) {
  if (alignment <= 0)
    return InvalidInput(fmt::format("alignment {} is not positive", alignment));
  for (PlacementBuffer& b : problem.buffers) {
    if (b.alignment <= 0) continue;  // ValidatePlacementProblem names it.
    const int64_t reduced = b.alignment / std::gcd(b.alignment, alignment);
    int64_t lcm = 0;
    if (__builtin_mul_overflow(reduced, alignment, &lcm) || lcm > kMaxAlignment) {
      return InvalidInput(
          fmt::format("buffer {}: alignment {} combined with {} exceeds 2^30", b.id,
                      b.alignment, alignment));
    }
    b.alignment = lcm;
  }
  return OkStatus();
}

LiveBytesBound ComputeLiveBytesBound(const PlacementProblem& problem) {
  // Events (time, delta): at equal times, ends (negative deltas) come first, because
  // lifetimes are half-open.
  std::vector<std::pair<int64_t, int64_t>> events;
  events.reserve(2 * problem.buffers.size());
  LiveBytesBound bound;
  for (const PlacementBuffer& b : problem.buffers) {
    if (b.size == 0) continue;
    events.emplace_back(b.start, b.size);
    events.emplace_back(b.end, -b.size);
    if (b.fixed_offset && *b.fixed_offset + b.size > bound.bytes) {
      bound = {*b.fixed_offset + b.size, b.start};
    }
  }
  std::sort(events.begin(), events.end());
  int64_t live = 0;
  for (const auto& [time, delta] : events) {
    live += delta;
    if (live > bound.bytes) bound = {live, time};
  }
  return bound;
}

bool HasFixedOffsets(const PlacementProblem& problem) {
  return std::any_of(problem.buffers.begin(), problem.buffers.end(),
                     [](const PlacementBuffer& b) { return b.fixed_offset.has_value(); });
}

}  // namespace olla
