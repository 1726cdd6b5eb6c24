#include "olla/placement/sweep.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <utility>
#include <vector>

namespace olla {
namespace {

// The free space between live blocks, and the blocks themselves.
class Arena {
 public:
  // Best fit: the smallest gap that holds `size` at `alignment` (its lowest aligned
  // offset); else on top of the highest live block. A few gaps past the first of the
  // right size are tried, for alignment; sizes are usually multiples of it.
  int64_t Allocate(int64_t size, int64_t alignment) {
    constexpr int kTries = 16;
    int tries = 0;
    for (auto gap = gaps_.lower_bound({size, 0}); gap != gaps_.end() && tries < kTries;
         ++gap, ++tries) {
      const auto [length, begin] = *gap;
      const int64_t offset = AlignUp(begin, alignment);
      if (offset + size > begin + length) continue;
      gaps_.erase(gap);
      AddGap(begin, offset);
      AddGap(offset + size, begin + length);
      blocks_.emplace(offset, offset + size);
      return offset;
    }
    const int64_t offset = AlignUp(frontier_, alignment);
    AddGap(frontier_, offset);
    blocks_.emplace(offset, offset + size);
    frontier_ = offset + size;
    return offset;
  }

  void Free(int64_t offset) {
    const auto block = blocks_.find(offset);
    const int64_t end = block->second;
    const auto next = std::next(block);
    const int64_t below = block == blocks_.begin() ? 0 : std::prev(block)->second;
    // Gaps are [below, offset) and [end, next start): merge them with the block's bytes.
    RemoveGap(below, offset);
    if (next == blocks_.end()) {
      frontier_ = below;  // The top region grows down to the next live block.
    } else {
      RemoveGap(end, next->first);
      AddGap(below, next->first);
    }
    blocks_.erase(block);
  }

 private:
  void AddGap(int64_t begin, int64_t end) {
    if (end > begin) gaps_.emplace(end - begin, begin);
  }
  void RemoveGap(int64_t begin, int64_t end) {
    if (end > begin) gaps_.erase({end - begin, begin});
  }

  std::set<std::pair<int64_t, int64_t>> gaps_;  // (length, begin)
  std::map<int64_t, int64_t> blocks_;           // offset -> end
  int64_t frontier_ = 0;                        // The end of the highest live block.
};

}  // namespace

Placement SweepPlacer::Place(const PlacementProblem& problem,
                             const Budget& budget) const {
  const std::vector<PlacementBuffer>& buffers = problem.buffers;
  const size_t n = buffers.size();
  std::vector<int64_t> offsets(n, 0);
  for (size_t i = 0; i < n; ++i) offsets[i] = buffers[i].fixed_offset.value_or(0);
  // Starts in time order (larger and longer first at equal starts, as an allocator
  // that knew them would), ends in time order; at equal times ends go first.
  std::vector<int32_t> starts(n);
  std::iota(starts.begin(), starts.end(), 0);
  std::erase_if(starts,
                [&](int32_t i) { return buffers[static_cast<size_t>(i)].size == 0; });
  std::vector<int32_t> ends = starts;
  std::sort(starts.begin(), starts.end(), [&](int32_t a, int32_t b) {
    const PlacementBuffer& x = buffers[static_cast<size_t>(a)];
    const PlacementBuffer& y = buffers[static_cast<size_t>(b)];
    if (x.start != y.start) return x.start < y.start;
    if (x.size != y.size) return x.size > y.size;
    if (x.end != y.end) return x.end > y.end;
    return a < b;
  });
  std::sort(ends.begin(), ends.end(), [&](int32_t a, int32_t b) {
    const int64_t x = buffers[static_cast<size_t>(a)].end;
    const int64_t y = buffers[static_cast<size_t>(b)].end;
    return x != y ? x < y : a < b;
  });

  Placement placement;
  placement.method = name();
  const bool stack = HasFixedOffsets(problem);
  Arena arena;
  int64_t top = 0;  // Of everything placed so far (stacking: above every fixed buffer).
  if (stack) {
    for (const PlacementBuffer& b : buffers) {
      if (b.fixed_offset) top = std::max(top, *b.fixed_offset + b.size);
    }
  }
  size_t next_end = 0;
  for (size_t k = 0; k < starts.size(); ++k) {
    const auto i = static_cast<size_t>(starts[k]);
    const PlacementBuffer& b = buffers[i];
    if (stack || ((k & 4095) == 4095 && budget.OutOfTime())) {
      // Out of time (or fixed offsets): the rest on top, where nothing can collide.
      if (!stack) placement.stopped_by = budget.Reached();
      for (size_t rest = k; rest < starts.size(); ++rest) {
        const auto r = static_cast<size_t>(starts[rest]);
        if (buffers[r].fixed_offset) {
          offsets[r] = *buffers[r].fixed_offset;
          continue;
        }
        offsets[r] = AlignUp(top, buffers[r].alignment);
        top = offsets[r] + buffers[r].size;
      }
      break;
    }
    while (next_end < ends.size() &&
           buffers[static_cast<size_t>(ends[next_end])].end <= b.start) {
      arena.Free(offsets[static_cast<size_t>(ends[next_end])]);
      ++next_end;
    }
    offsets[i] = arena.Allocate(b.size, b.alignment);
    top = std::max(top, offsets[i] + b.size);
  }
  placement.arena_bytes = ArenaOf(problem, offsets);
  placement.offsets = std::move(offsets);
  placement.lower_bound_bytes = ComputeLiveBytesBound(problem).bytes;
  return placement;
}

}  // namespace olla
