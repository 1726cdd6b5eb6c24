#include "olla/placement/ilp.h"

#include <algorithm>
#include <cmath>

#include "olla/placement/greedy.h"

namespace olla {
namespace {

bool LivesThroughout(const PlacementBuffer& b, int64_t first, int64_t last) {
  return b.start <= first && b.end >= last;
}

}  // namespace

Placement IlpPlacer::Place(const PlacementProblem& problem) const {
  Placement best = BestGreedyPlacement(problem, options_.threads);
  if (best.optimal() || HasFixedOffsets(problem) || problem.size() == 0) return best;

  const auto n = static_cast<size_t>(problem.size());
  const double upper = static_cast<double>(best.arena_bytes);
  int64_t first = INT64_MAX, last = INT64_MIN;
  bool unaligned = true;
  for (const PlacementBuffer& b : problem.buffers) {
    first = std::min(first, b.start);
    last = std::max(last, b.end);
    unaligned = unaligned && b.alignment == 1;
  }

  MilpModel model;
  const int32_t top = model.AddVariable(
      "top", static_cast<double>(best.lower_bound_bytes), upper, 1.0, true);
  // Offsets: buffers live throughout are stacked from 0 (only without alignment, where
  // moving them down provably loses nothing); the others are free below the top.
  std::vector<int32_t> offset(n);
  std::vector<double> start_values;
  int64_t stacked = 0;
  for (size_t i = 0; i < n; ++i) {
    const PlacementBuffer& b = problem.buffers[i];
    const double size = static_cast<double>(b.size);
    if (unaligned && b.size > 0 && LivesThroughout(b, first, last)) {
      offset[i] = model.AddVariable("o" + b.id, static_cast<double>(stacked),
                                    static_cast<double>(stacked), 0.0, true);
      stacked += b.size;
    } else {
      offset[i] =
          model.AddVariable("o" + b.id, 0.0, std::max(0.0, upper - size), 0.0, true);
    }
    if (b.size > 0)
      model.AddConstraint("top_" + b.id, {{top, 1}, {offset[i], -1}}, size, kInfinity);
  }
  // Offsets as multiples of the alignment: offset = alignment * multiple.
  std::vector<int32_t> multiple(n, -1);
  for (size_t i = 0; i < n; ++i) {
    const PlacementBuffer& b = problem.buffers[i];
    if (b.alignment == 1) continue;
    const auto alignment = static_cast<double>(b.alignment);
    multiple[i] =
        model.AddVariable("k" + b.id, 0, std::floor(upper / alignment), 0, true);
    model.AddConstraint("align_" + b.id, {{offset[i], 1}, {multiple[i], -alignment}}, 0,
                        0);
  }
  struct Pair {
    size_t below, above;
    int32_t choice;
  };
  std::vector<Pair> pairs;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      const PlacementBuffer& a = problem.buffers[i];
      const PlacementBuffer& c = problem.buffers[j];
      if (a.size == 0 || c.size == 0 || !a.Overlaps(c)) continue;
      // choice = 1: a below c (o_a + s_a <= o_c); choice = 0: c below a.
      const int32_t choice = model.AddBinary("y" + a.id + "_" + c.id);
      model.AddConstraint("below_" + a.id + "_" + c.id,
                          {{offset[i], 1}, {offset[j], -1}, {choice, upper}}, -kInfinity,
                          upper - static_cast<double>(a.size));
      model.AddConstraint("above_" + a.id + "_" + c.id,
                          {{offset[j], 1}, {offset[i], -1}, {choice, -upper}}, -kInfinity,
                          -static_cast<double>(c.size));
      pairs.push_back({i, j, choice});
    }
  }

  // The best greedy placement as the MIP start, when it agrees with the stacking.
  std::vector<double> start(static_cast<size_t>(model.num_variables()), 0.0);
  bool start_fits = true;
  start[static_cast<size_t>(top)] = upper;
  for (size_t i = 0; i < n; ++i) {
    const auto value = static_cast<double>(best.offsets[i]);
    const MilpVariable& variable = model.variables()[static_cast<size_t>(offset[i])];
    start_fits = start_fits && value >= variable.lower && value <= variable.upper;
    start[static_cast<size_t>(offset[i])] = value;
    if (multiple[i] >= 0) {
      start[static_cast<size_t>(multiple[i])] =
          value / static_cast<double>(problem.buffers[i].alignment);
    }
  }
  for (const Pair& p : pairs) {
    const bool below =
        best.offsets[p.below] + problem.buffers[p.below].size <= best.offsets[p.above];
    start[static_cast<size_t>(p.choice)] = below ? 1.0 : 0.0;
  }

  MilpOptions milp;
  milp.time_limit_seconds = options_.time_limit_seconds;
  milp.threads = options_.threads;
  if (start_fits) milp.start = start;
  StatusOr<MilpResult> result = options_.solver()->Solve(model, milp);
  OLLA_CHECK(result.ok(), "the location ILP is malformed: " + result.status().message());
  if (result->has_solution() && result->objective < upper - 0.5) {
    std::vector<int64_t> offsets(n);
    for (size_t i = 0; i < n; ++i) {
      offsets[i] = std::llround(result->values[static_cast<size_t>(offset[i])]);
    }
    best.offsets = std::move(offsets);
    best.arena_bytes = ArenaOf(problem, best.offsets);
    best.method = "ilp";
  }
  if (result->conclusion == MilpConclusion::kOptimal) {
    best.lower_bound_bytes = best.arena_bytes;
  } else if (result->has_bound()) {
    const auto proven = static_cast<int64_t>(std::ceil(result->best_bound - 1e-6));
    best.lower_bound_bytes =
        std::min(best.arena_bytes, std::max(best.lower_bound_bytes, proven));
  }
  return best;
}

}  // namespace olla
