// Exact placement: a branch-and-bound search for "does everything fit under capacity
// C?", and around it the minimisation of C.
//
// The search builds a placement bottom up and only ever visits canonical ones: each
// buffer goes at the lowest offset the buffers already placed allow (on the floor, or
// on top of a buffer it overlaps in time), and buffers are placed in non-decreasing
// (offset, rank) order, rank being a priority (recomputed for each independent part).
// Every placement can be pushed down into such a form, so the search is complete. It
// prunes with
// - cross-section sums: in each section, the floor already reached plus the sizes still
//   to place must fit under C (floors raised to the lowest offset any unplaced buffer
//   there can take);
// - dominance: a buffer is not placed where another unplaced buffer would fit entirely
//   below it, since the placement with that one first is at least as good;
// - decomposition at time boundaries no buffer crosses: the parts are independent;
// - hatless buffers: one that no unplaced buffer overlaps any more has its final
//   offset, so it is placed at once instead of being branched on.
// The ideas follow MiniMalloc (Moffitt, ASPLOS 2023). Beyond it: the lower bound of each
// minimisation comes from refutations rounded to the problem's size granularity, several
// rank orders are raced on both cores in deterministic rounds with growing node limits
// (restarts), and the search starts from the best greedy placement so it is anytime.
//
// Limits: the budget (core/budget.h) covers the greedy start; its work units are search
// nodes. Results are the same for every thread count unless the wall clock cuts a
// search short. Memory: O(n + overlapping pairs + sum of the buffers' spans in
// sections) per search running at once.
#pragma once

#include <cstdint>
#include <vector>

#include "olla/placement/placer.h"

namespace olla {

struct ExactOptions {
  // Pruning rules; each can be switched off alone (tests show none changes the optimum).
  bool canonical_order = true;
  bool dominance = true;
  bool section_bound = true;
  bool raise_floors = true;
  bool decompose = true;
  bool place_hatless = true;  // Buffers nothing unplaced overlaps are placed at once.

  int threads = 2;  // Rank orders searched at once.
};

enum class Feasibility { kFits, kDoesNotFit, kUnknown };

struct CapacitySearch {
  Feasibility feasibility = Feasibility::kUnknown;
  std::vector<int64_t> offsets;  // A placement within the capacity, when it fits.
  int64_t nodes = 0;             // Search nodes spent.
};

// Decides whether `problem` fits in `capacity` bytes. kUnknown when the budget ran out.
CapacitySearch FitUnderCapacity(const PlacementProblem& problem, int64_t capacity,
                                const ExactOptions& options, const Budget& budget);

// Minimises the arena: the best greedy placement first, then the live-bytes bound, then
// a bisection between the proven bound and the best arena found, until the search
// proves nothing smaller fits (optimal) or a limit runs out (the best placement and the
// best proven bound so far).
class ExactPlacer : public Placer {
 public:
  explicit ExactPlacer(ExactOptions options = {}) : options_(options) {}
  std::string name() const override { return "exact"; }
  Placement Place(const PlacementProblem& problem, const Budget& budget) const override;

 private:
  ExactOptions options_;
};

}  // namespace olla
