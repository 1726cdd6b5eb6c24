#include "olla/placement/ilp.h"

#include <algorithm>
#include <cmath>

#include "olla/placement/greedy.h"
#include "olla/placement/sections.h"

namespace olla {
namespace {

bool LivesThroughout(const PlacementBuffer& b, int64_t first, int64_t last) {
  return b.start <= first && b.end >= last;
}

// The sets of buffers live together that no other such set contains (the maximal
// cliques of the interval graph): a section's live set is one unless a neighbouring
// section's contains it, since a buffer live in two sections is live in those between.
std::vector<std::vector<int32_t>> MaximalLiveSets(const PlacementProblem& problem) {
  const Sections sections = ComputeSections(problem);
  auto contains = [](const std::vector<int32_t>& outer,
                     const std::vector<int32_t>& inner) {
    return std::includes(outer.begin(), outer.end(), inner.begin(), inner.end());
  };
  std::vector<std::vector<int32_t>> sets;
  for (int32_t s = 0; s < sections.size(); ++s) {
    const auto& live = sections.buffers_in[static_cast<size_t>(s)];
    const bool left =
        s > 0 && contains(sections.buffers_in[static_cast<size_t>(s - 1)], live);
    const bool right = s + 1 < sections.size() &&
                       contains(sections.buffers_in[static_cast<size_t>(s + 1)], live);
    if (!live.empty() && !left && !right) sets.push_back(live);
  }
  return sets;
}

}  // namespace

Placement IlpPlacer::Place(const PlacementProblem& problem, const Budget& budget) const {
  Placement best = BestGreedyPlacement(problem, options_.threads, budget);
  if (best.optimal() || HasFixedOffsets(problem) || problem.size() == 0) return best;
  // The model has a binary per overlapping pair and a constraint per buffer of each
  // live set: quadratic, seconds to build on a thousand buffers. Building stops when
  // the budget's time is out, and the greedy placement stands.
  auto out_of_time = [&] {
    if (!budget.OutOfTime()) return false;
    best.stopped_by = budget.Reached();
    return true;
  };
  if (out_of_time()) return best;

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
    if (i % 64 == 0 && out_of_time()) return best;
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

  // Stacking: within a set of buffers live together, a buffer rests above the sizes of
  // every member below it, and the top above its own end and the sizes of every member
  // above it. With the binaries fractional these only restate the live-bytes bound, but
  // once branching fixes some of them they lift offsets far more than the pairwise
  // constraints (which chain one pair at a time), so CBC proves optima it otherwise
  // does not reach.
  // The binary of pair (a, c), a < c: pairs were made in increasing (a, c) order.
  std::vector<std::vector<std::pair<size_t, int32_t>>> choices_above(n);
  for (const Pair& p : pairs) choices_above[p.below].emplace_back(p.above, p.choice);
  auto choice_of = [&](size_t a, size_t c) {
    const auto& choices = choices_above[a];
    return std::lower_bound(choices.begin(), choices.end(), std::make_pair(c, -1))
        ->second;
  };
  const std::vector<std::vector<int32_t>> live_sets = MaximalLiveSets(problem);
  for (size_t k = 0; k < live_sets.size(); ++k) {
    const std::vector<int32_t>& live = live_sets[k];
    if (live.size() < 3) continue;  // Pairs are covered by their own constraints.
    if (out_of_time()) return best;
    for (int32_t i : live) {
      const auto ui = static_cast<size_t>(i);
      if (problem.buffers[ui].size == 0) continue;
      // below(j, i) is y[j][i] when j < i, else 1 - y[i][j].
      std::vector<MilpTerm> rest = {{offset[ui], 1}};
      std::vector<MilpTerm> roof = {{top, 1}, {offset[ui], -1}};
      double rest_lower = 0, roof_lower = static_cast<double>(problem.buffers[ui].size);
      for (int32_t j : live) {
        const auto uj = static_cast<size_t>(j);
        const auto size = static_cast<double>(problem.buffers[uj].size);
        if (j == i || size == 0) continue;
        if (j < i) {
          rest.push_back({choice_of(uj, ui), -size});
          roof.push_back({choice_of(uj, ui), size});
          roof_lower += size;
        } else {
          rest.push_back({choice_of(ui, uj), size});
          rest_lower += size;
          roof.push_back({choice_of(ui, uj), -size});
        }
      }
      const std::string name = problem.buffers[ui].id + "_" + std::to_string(k);
      model.AddConstraint("rest_" + name, rest, rest_lower, kInfinity);
      model.AddConstraint("roof_" + name, roof, roof_lower, kInfinity);
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

  if (out_of_time()) return best;
  if (!FitsInTime(ModelEntries(model), budget)) {
    best.stopped_by = Budget::Limit::kTime;
    return best;
  }
  MilpOptions milp;
  LimitByBudget(budget, milp);
  milp.threads = options_.threads;
  if (start_fits) milp.start = start;
  StatusOr<MilpResult> result = options_.solver()->Solve(model, milp);
  OLLA_CHECK(result.ok(), "the location ILP is malformed: " + result.status().message());
  budget.Spend(result->nodes);
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
  if (!best.optimal()) best.stopped_by = budget.Reached();
  return best;
}

}  // namespace olla
