// The heuristic orders, each a baseline: eager (the framework's own order), as late as
// possible, the list schedulers, and "best of" them all.
#pragma once

#include <string>
#include <vector>

#include "olla/core/budget.h"
#include "olla/graph/order.h"
#include "olla/schedule/executor.h"
#include "olla/schedule/memory_state.h"

namespace olla {

struct ScoredOrder {
  std::string method;
  Order order;
  int64_t peak_bytes = 0;
};

// The eager order; with rules.updates_asap, as the rules have it (FollowRules): each
// optimizer op at the moment it becomes ready, and the other rules with it.
ScoredOrder EagerSchedule(const MemoryModel& model, const ScheduleRules& rules);

// Every op as late as its consumers allow: the reverse of a topological order of the
// reversed graph that takes the highest id first. Backward ops that recompute from
// saved activations then run right before their results are needed.
Order AsLateAsPossible(const Graph& graph);

// Eager, as late as possible ("alap") and every list policy, in that order
// (list_scheduler.h), under `rules`. Each takes a second or two at a million ops: past
// the budget's deadline the rest are skipped (eager always runs).
std::vector<ScoredOrder> AllHeuristics(const MemoryModel& model,
                                       const ScheduleRules& rules,
                                       const Budget& budget = Budget());

// The one with the smallest peak (the first on ties).
ScoredOrder BestHeuristic(const MemoryModel& model, const ScheduleRules& rules,
                          const Budget& budget = Budget());

}  // namespace olla
