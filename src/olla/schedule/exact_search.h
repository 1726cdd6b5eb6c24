// Exact search for one piece (decomposition.h): dynamic programming over the sets of
// completed ops, run as a depth-first branch and bound with memoisation.
//
// The live bytes after a set of completed ops depend on the set alone, not on the order
// that completed it; so a set reached again with a peak no lower than before cannot
// lead anywhere better and is pruned (the memo holds the lowest peak each set was
// reached with). Branches are also pruned when their peak so far, or the forced-live
// bound of an op still to run, reaches the best peak known. Only free ops are chosen;
// the others run by rule inside each step (executor.h), which keeps the sets few.
// Children are tried most-freeing first, so good orders come early. When the search
// completes, the best order is optimal for the piece; limits on states and time make it
// stop early, keeping the best order found.
#pragma once

#include <cstdint>
#include <vector>

#include "olla/core/budget.h"
#include "olla/schedule/executor.h"
#include "olla/schedule/memory_state.h"

namespace olla {

// The search's own limits, deterministic: the memo's size bounds its memory, and a piece
// gets at most max_nodes nodes of the budget (core/budget.h: work units are nodes).
struct ExactSearchLimits {
  int64_t max_memo_states = 1'000'000;
  // Each state's key holds a bit per free op: on a piece of 666,667 ops a million
  // states would take 83 GB, so the memo also stops at this many bytes.
  int64_t max_memo_bytes = int64_t{1} << 30;
  int64_t max_nodes = 20'000'000;
};

struct ExactSearchResult {
  bool complete = false;   // Searched everything: `peak_bytes` is the piece optimum.
  bool improved = false;   // `ops` beats the incumbent.
  std::vector<OpId> ops;   // Every op the piece runs (free and ASAP), when improved.
  int64_t peak_bytes = 0;  // The best peak: the incumbent's or the improvement's.
  int64_t states = 0;      // Sets of completed ops memoised.
};

// Searches the orders of `free_ops` (one piece) from the state `start` (everything
// before the piece has run), for a peak below `incumbent_peak`, stopping early once it
// reaches `good_enough` (a bound below which the rest of the graph makes no
// difference). `forced_live` is analysis/lower_bounds.h's ForcedLiveBytes.
ExactSearchResult SearchPiece(const MemoryModel& model,
                              const std::vector<int64_t>& forced_live,
                              const Executor& start, const std::vector<OpId>& free_ops,
                              int64_t incumbent_peak, int64_t good_enough,
                              const ExactSearchLimits& limits, const Budget& budget);

}  // namespace olla
