// The heuristic orders, each a baseline: eager (the framework's own order) and the list
// schedulers, and "best of" them all.
#pragma once

#include <string>
#include <vector>

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

// Eager and every list policy, in that order (list_scheduler.h), under `rules`.
std::vector<ScoredOrder> AllHeuristics(const MemoryModel& model,
                                       const ScheduleRules& rules);

// The one with the smallest peak (the first on ties).
ScoredOrder BestHeuristic(const MemoryModel& model, const ScheduleRules& rules);

}  // namespace olla
