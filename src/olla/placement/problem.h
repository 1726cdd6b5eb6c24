// PlacementProblem: buffers with a size, an alignment and a half-open lifetime
// [start, end), to be given offsets in one arena so that buffers live at the same time
// never share a byte. Placement never sees a graph: the same problem comes from an
// order's lifetimes or from a MiniMalloc CSV file.
//
// The live-bytes lower bound is the largest total size live at one instant (and no
// arena can end below a fixed buffer's end). Cost: O(n log n), a sweep over sorted
// start and end times.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "olla/core/status.h"

namespace olla {

struct PlacementBuffer {
  std::string id;  // The caller's name for it (a CSV row's id, a graph buffer's index).
  int64_t start = 0;
  int64_t end = 0;  // Exclusive; start < end.
  int64_t size = 0;
  int64_t alignment = 1;  // The offset must be a multiple of it.
  std::optional<int64_t> fixed_offset;

  bool Overlaps(const PlacementBuffer& other) const {
    return start < other.end && other.start < end;
  }
};

struct PlacementProblem {
  std::vector<PlacementBuffer> buffers;

  int32_t size() const { return static_cast<int32_t>(buffers.size()); }
};

// Ok when every buffer has start < end within [-2^61, 2^61], size >= 0, an alignment
// in [1, 2^30], a fixed offset (if any) that is non-negative and aligned, sizes that
// add up to at most 2^62 and fixed ends at most 2^62 (core/limits.h: every sum a placer
// forms then fits). Messages name the buffer by its id.
Status ValidatePlacementProblem(const PlacementProblem& problem);

// Aligns every offset to a multiple of `alignment` as well as of the buffer's own: each
// buffer's alignment becomes the least common multiple. An lcm above 2^30
// (kMaxAlignment) is an error naming the buffer.
Status AlignAll(PlacementProblem& problem, int64_t alignment);

struct LiveBytesBound {
  int64_t bytes = 0;  // No placement's arena is smaller.
  int64_t time = 0;   // An instant at which that many bytes are live (or the fixed
                      // buffer's start, when a fixed end is the larger bound).
};

LiveBytesBound ComputeLiveBytesBound(const PlacementProblem& problem);

// True when some buffer has a fixed offset (the searches that assume every buffer rests
// on the floor or on another buffer leave such problems to the greedy placers).
bool HasFixedOffsets(const PlacementProblem& problem);

inline int64_t AlignUp(int64_t value, int64_t alignment) {
  const int64_t remainder = value % alignment;
  return remainder == 0 ? value : value + (alignment - remainder);
}

}  // namespace olla
