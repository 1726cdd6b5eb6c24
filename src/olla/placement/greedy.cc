#include "olla/placement/greedy.h"

#include <algorithm>
#include <numeric>
#include <tuple>

#include "olla/placement/best_of.h"
#include "olla/placement/interval_index.h"
#include "olla/placement/sweep.h"

namespace olla {
namespace {

const char* FitName(FitPolicy fit) {
  return fit == FitPolicy::kBestFit ? "best-fit" : "first-fit";
}

const char* OrderName(GreedyOrder order) {
  switch (order) {
    case GreedyOrder::kSize:
      return "size";
    case GreedyOrder::kLifetime:
      return "lifetime";
    case GreedyOrder::kArea:
      return "area";
    case GreedyOrder::kConflicts:
      return "conflicts";
  }
  return "?";
}

// Areas (size x lifetime) need 126 bits.
__extension__ using Int128 = __int128;

// For each buffer, how many others overlap it: all but those that start at or after
// its end or end at or before its start. O(n log n).
std::vector<int64_t> ConflictCounts(const PlacementProblem& problem) {
  std::vector<int64_t> starts, ends;
  for (const PlacementBuffer& b : problem.buffers) {
    starts.push_back(b.start);
    ends.push_back(b.end);
  }
  std::sort(starts.begin(), starts.end());
  std::sort(ends.begin(), ends.end());
  std::vector<int64_t> counts;
  for (const PlacementBuffer& b : problem.buffers) {
    const auto later =
        starts.end() - std::lower_bound(starts.begin(), starts.end(), b.end);
    const auto earlier =
        std::upper_bound(ends.begin(), ends.end(), b.start) - ends.begin();
    counts.push_back(static_cast<int64_t>(starts.size()) - later - earlier - 1);
  }
  return counts;
}

// The placement order: buffer indices, most important first.
std::vector<int32_t> PriorityOrder(const PlacementProblem& problem, GreedyOrder order) {
  const auto n = static_cast<size_t>(problem.size());
  const std::vector<int64_t> conflicts =
      order == GreedyOrder::kConflicts ? ConflictCounts(problem) : std::vector<int64_t>();
  // One key per buffer, compared lexicographically (larger first), then by index.
  using Key = std::tuple<Int128, int64_t, int64_t>;
  std::vector<Key> keys(n);
  for (size_t i = 0; i < n; ++i) {
    const PlacementBuffer& b = problem.buffers[i];
    const int64_t lifetime = b.end - b.start;
    switch (order) {
      case GreedyOrder::kSize:
        keys[i] = {b.size, lifetime, 0};
        break;
      case GreedyOrder::kLifetime:
        keys[i] = {lifetime, b.size, 0};
        break;
      case GreedyOrder::kArea:
        keys[i] = {static_cast<Int128>(b.size) * lifetime, b.size, lifetime};
        break;
      case GreedyOrder::kConflicts:
        keys[i] = {conflicts[i], b.size, lifetime};
        break;
    }
  }
  std::vector<int32_t> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  std::sort(ids.begin(), ids.end(), [&](int32_t a, int32_t b) {
    const Key& ka = keys[static_cast<size_t>(a)];
    const Key& kb = keys[static_cast<size_t>(b)];
    return ka != kb ? ka > kb : a < b;
  });
  return ids;
}

// The offset for a buffer of `size` and `alignment` among `taken` byte ranges (sorted
// by start; they may overlap one another).
int64_t ChooseOffset(const std::vector<std::pair<int64_t, int64_t>>& taken, int64_t size,
                     int64_t alignment, FitPolicy fit) {
  int64_t cursor = 0;  // Everything below it is examined.
  int64_t best = -1;
  int64_t best_gap = INT64_MAX;
  for (const auto& [begin, end] : taken) {
    if (begin > cursor) {
      const int64_t candidate = AlignUp(cursor, alignment);
      if (candidate + size <= begin) {
        if (fit == FitPolicy::kFirstFit) return candidate;
        if (begin - cursor < best_gap) {
          best_gap = begin - cursor;
          best = candidate;
        }
      }
    }
    cursor = std::max(cursor, end);
  }
  return best >= 0 ? best : AlignUp(cursor, alignment);
}

}  // namespace

std::string GreedyPlacer::name() const {
  return std::string(FitName(options_.fit)) + "/" + OrderName(options_.order);
}

Placement GreedyPlacer::Place(const PlacementProblem& problem,
                              const Budget& budget) const {
  // The index holds the placed buffers of non-zero size: the only ones that take bytes.
  IntervalIndex placed_index(problem, /*all_active=*/false);
  const auto n = static_cast<size_t>(problem.size());
  std::vector<int64_t> offsets(n, 0);
  int64_t top = 0;  // The highest end placed so far.
  for (size_t i = 0; i < n; ++i) {
    if (problem.buffers[i].fixed_offset) {
      offsets[i] = *problem.buffers[i].fixed_offset;
      top = std::max(top, offsets[i] + problem.buffers[i].size);
      if (problem.buffers[i].size > 0) placed_index.Activate(static_cast<int32_t>(i));
    }
  }
  Placement placement;
  std::vector<std::pair<int64_t, int64_t>> taken;
  int64_t placed = 0;
  for (int32_t i : PriorityOrder(problem, options_.order)) {
    const PlacementBuffer& b = problem.buffers[static_cast<size_t>(i)];
    if (b.fixed_offset || b.size == 0) continue;  // Zero-size buffers stay at offset 0.
    // Out of time, the rest go on top of everything: valid at once, if not compact.
    if (placement.stopped_by == Budget::Limit::kNone && (++placed & 255) == 0 &&
        budget.OutOfTime()) {
      placement.stopped_by = budget.Reached();
    }
    if (placement.stopped_by != Budget::Limit::kNone) {
      offsets[static_cast<size_t>(i)] = AlignUp(top, b.alignment);
      top = offsets[static_cast<size_t>(i)] + b.size;
      continue;
    }
    taken.clear();
    placed_index.ForEachOverlapping(b.start, b.end, [&](int32_t j) {
      const auto uj = static_cast<size_t>(j);
      taken.emplace_back(offsets[uj], offsets[uj] + problem.buffers[uj].size);
    });
    std::sort(taken.begin(), taken.end());
    offsets[static_cast<size_t>(i)] =
        ChooseOffset(taken, b.size, b.alignment, options_.fit);
    top = std::max(top, offsets[static_cast<size_t>(i)] + b.size);
    placed_index.Activate(i);
  }
  placement.arena_bytes = ArenaOf(problem, offsets);
  placement.offsets = std::move(offsets);
  placement.lower_bound_bytes = ComputeLiveBytesBound(problem).bytes;
  placement.method = name();
  return placement;
}

namespace {

// One placer per (fit, order), fits outermost.
std::vector<std::unique_ptr<Placer>> Placers(const std::vector<FitPolicy>& fits,
                                             const std::vector<GreedyOrder>& orders) {
  std::vector<std::unique_ptr<Placer>> placers;
  for (FitPolicy fit : fits) {
    for (GreedyOrder order : orders) {
      placers.push_back(std::make_unique<GreedyPlacer>(GreedyOptions{fit, order}));
    }
  }
  return placers;
}

const std::vector<GreedyOrder> kAllOrders = {GreedyOrder::kSize, GreedyOrder::kArea,
                                             GreedyOrder::kLifetime,
                                             GreedyOrder::kConflicts};

}  // namespace

std::vector<std::unique_ptr<Placer>> GreedyPortfolio(const PlacementProblem& problem,
                                                     std::vector<FitPolicy> fits) {
  if (problem.size() > kLargeProblemBuffers) {
    if (std::find(fits.begin(), fits.end(), FitPolicy::kBestFit) != fits.end())
      fits = {FitPolicy::kBestFit};
    return Placers(fits, {GreedyOrder::kSize, GreedyOrder::kConflicts});
  }
  return Placers(fits, kAllOrders);
}

std::vector<std::unique_ptr<Placer>> StartingPortfolio(const PlacementProblem& problem) {
  std::vector<std::unique_ptr<Placer>> placers;
  // The sweep first: a placement in O(n log n), whatever the greedy placers then have
  // time for (out of time, the best of the first batch is kept).
  if (!HasFixedOffsets(problem)) placers.push_back(std::make_unique<SweepPlacer>());
  for (auto& placer :
       GreedyPortfolio(problem, {FitPolicy::kBestFit, FitPolicy::kFirstFit}))
    placers.push_back(std::move(placer));
  return placers;
}

Placement BestGreedyPlacement(const PlacementProblem& problem, int threads,
                              const Budget& budget) {
  return BestOfPlacer("greedy", StartingPortfolio(problem), threads)
      .Place(problem, budget);
}

std::vector<std::unique_ptr<Placer>> AllGreedyPlacers() {
  return Placers({FitPolicy::kBestFit, FitPolicy::kFirstFit}, kAllOrders);
}

}  // namespace olla
