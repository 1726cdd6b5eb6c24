// Local search over orders: an anytime improver for problems too large for the exact
// search.
//
// A solution is the sequence of free ops (the others follow by rule, executor.h). A move
// takes one free op and reinserts it elsewhere inside its dependency window (after its
// last free ancestor, before its first free descendant); ops near the current peak
// are picked more often, since only moves around the peak can lower it. A move is
// evaluated incrementally: replay starts from the nearest saved state before the
// change and stops as soon as it reaches the best peak. Moves that do not raise the
// peak are kept (plateaus are where the next improvement hides); after a long run
// without improvement the search restarts from the best order, perturbed. The random
// choices come from a fixed seed and the work is counted in moves (the budget's work
// units), so the result is deterministic unless the wall clock cuts in first.
#pragma once

#include <cstdint>
#include <vector>

#include "olla/core/budget.h"
#include "olla/graph/order.h"
#include "olla/schedule/executor.h"
#include "olla/schedule/memory_state.h"

namespace olla {

struct LocalSearchOptions {
  // Past this many moves the search rarely improves: it ends there even with budget left.
  int64_t max_moves = 200'000;
  uint64_t seed = 1;
  int64_t target_peak = 0;  // Stop once the peak is at or below it (a lower bound).
};

struct LocalSearchResult {
  Order order;  // An order that follows the rules of the timings.
  int64_t peak_bytes = 0;
  int64_t moves = 0;
  int64_t improvements = 0;
};

// Starts from `start` (any valid order) and never returns anything worse than
// FollowRules(start).
LocalSearchResult LocalSearch(const MemoryModel& model, const Timings& timings,
                              const Order& start, const LocalSearchOptions& options,
                              const Budget& budget);

}  // namespace olla
