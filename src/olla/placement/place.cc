#include "olla/placement/place.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "olla/core/names.h"
#include "olla/placement/best_of.h"
#include "olla/placement/exact.h"
#include "olla/placement/greedy.h"
#include "olla/placement/ilp.h"
#include "olla/placement/sections.h"
#include "olla/placement/sweep.h"

namespace olla {
namespace {

bool UseExact(const std::string& method, const PlacementProblem& problem) {
  if (HasFixedOffsets(problem)) return false;
  return method == "exact" ||
         (method == "auto" && CountSectionSpans(problem) <= kMaxExactSectionSpans);
}

Placement PlaceGreedily(const std::string& method, const PlacementProblem& problem,
                        int threads, const Budget& budget) {
  if (method == "sweep") return SweepPlacer().Place(problem, budget);
  if (method == "best-fit" || method == "first-fit") {
    const FitPolicy fit =
        method == "best-fit" ? FitPolicy::kBestFit : FitPolicy::kFirstFit;
    return BestOfPlacer(method, GreedyPortfolio(problem, {fit}), threads)
        .Place(problem, budget);
  }
  return BestGreedyPlacement(problem, threads, budget);
}

// Fitting a capacity: the greedy placers first, then (where the method allows) the
// exact search, or the location ILP, with what is left of the budget.
Placement FitCapacity(const PlacementProblem& problem, const PlaceOptions& options,
                      const Budget& budget) {
  const int64_t capacity = *options.capacity;
  Placement placement = PlaceGreedily(options.method, problem, options.threads, budget);
  if (placement.arena_bytes <= capacity || placement.lower_bound_bytes > capacity)
    return placement;  // Fits already, or the bound refutes it.
  if (options.method == "ilp") {
    // The location ILP has no decision form: it minimises (from the greedy start), and
    // the capacity is met when its arena is.
    IlpOptions ilp;
    ilp.threads = options.threads;
    Placement solved = IlpPlacer(ilp).Place(problem, budget);
    solved.lower_bound_bytes =
        std::max(solved.lower_bound_bytes, placement.lower_bound_bytes);
    return solved.arena_bytes <= placement.arena_bytes ? solved : placement;
  }
  if (!UseExact(options.method, problem)) return placement;  // No search allowed.
  if (budget.Exhausted()) {
    placement.stopped_by = budget.Reached();
    return placement;
  }
  ExactOptions exact;
  exact.threads = options.threads;
  const CapacitySearch search = FitUnderCapacity(problem, capacity, exact, budget);
  switch (search.feasibility) {
    case Feasibility::kFits:
      placement.offsets = search.offsets;
      placement.arena_bytes = ArenaOf(problem, placement.offsets);
      placement.method = "exact";
      break;
    case Feasibility::kDoesNotFit:  // Proven: the arena needs more than the capacity.
      placement.lower_bound_bytes = std::max(placement.lower_bound_bytes, capacity + 1);
      break;
    case Feasibility::kUnknown:
      placement.stopped_by = budget.Reached();
      break;
  }
  return placement;
}

Placement Minimize(const PlacementProblem& problem, const PlaceOptions& options,
                   const Budget& budget) {
  if (options.method == "ilp") {
    IlpOptions ilp;
    ilp.threads = options.threads;
    return IlpPlacer(ilp).Place(problem, budget);
  }
  if (UseExact(options.method, problem)) {
    ExactOptions exact;
    exact.threads = options.threads;
    return ExactPlacer(exact).Place(problem, budget);
  }
  return PlaceGreedily(options.method, problem, options.threads, budget);
}

// The buffers with fixed offsets must not collide among themselves: that is the
// input's fault, not the placer's. A sweep over time keeps the fixed buffers live at
// that instant ordered by offset; they never overlap, so a newcomer collides with one
// of them only if it collides with a neighbour. O(n log n).
Status CheckFixedBuffers(const PlacementProblem& problem) {
  struct Event {
    int64_t time;
    bool starts;  // Ends sort first at equal times: lifetimes are half-open.
    int32_t buffer;
    bool operator<(const Event& other) const {
      return std::tie(time, starts, buffer) <
             std::tie(other.time, other.starts, other.buffer);
    }
  };
  std::vector<Event> events;
  for (int32_t i = 0; i < problem.size(); ++i) {
    const PlacementBuffer& b = problem.buffers[static_cast<size_t>(i)];
    if (!b.fixed_offset || b.size == 0) continue;
    events.push_back({b.start, true, i});
    events.push_back({b.end, false, i});
  }
  std::sort(events.begin(), events.end());
  auto buffer = [&](int32_t i) -> const PlacementBuffer& {
    return problem.buffers[static_cast<size_t>(i)];
  };
  std::set<std::pair<int64_t, int32_t>> live;  // (offset, buffer)
  for (const Event& event : events) {
    const PlacementBuffer& b = buffer(event.buffer);
    const std::pair<int64_t, int32_t> key{*b.fixed_offset, event.buffer};
    if (!event.starts) {
      live.erase(key);
      continue;
    }
    const auto next = live.lower_bound(key);
    std::optional<int32_t> other;
    if (next != live.end() && next->first < *b.fixed_offset + b.size)
      other = next->second;
    if (!other && next != live.begin()) {
      const auto below = std::prev(next);
      const PlacementBuffer& c = buffer(below->second);
      if (*c.fixed_offset + c.size > *b.fixed_offset) other = below->second;
    }
    if (other) {
      const PlacementBuffer& c = buffer(*other);
      return InvalidInput(fmt::format(
          "fixed offsets collide: buffers {} [{}, {}) and {} [{}, {}) share bytes while "
          "both are live at time {}",
          b.id, *b.fixed_offset, *b.fixed_offset + b.size, c.id, *c.fixed_offset,
          *c.fixed_offset + c.size, event.time));
    }
    live.insert(key);
  }
  return OkStatus();
}

}  // namespace

bool IsPlacementMethod(const std::string& method) {
  return IsOneOf(method, kPlacementMethods);
}

StatusOr<Placement> Place(const PlacementProblem& problem, const PlaceOptions& options,
                          const Budget& budget) {
  if (!IsPlacementMethod(options.method))
    return InvalidInput("unknown placement method '" + options.method + "'");
  if (options.capacity && *options.capacity < 0)
    return InvalidInput(fmt::format("capacity {} is negative", *options.capacity));
  if (options.threads < 1)
    return InvalidInput(fmt::format("threads {} is not positive", options.threads));
  OLLA_RETURN_IF_ERROR(ValidatePlacementProblem(problem));
  OLLA_RETURN_IF_ERROR(CheckFixedBuffers(problem));
  return options.capacity ? FitCapacity(problem, options, budget)
                          : Minimize(problem, options, budget);
}

}  // namespace olla
