// List schedulers: near-linear heuristic orders that repeatedly pick one ready op.
//
// - kMemoryEffect: the op that frees the most bytes net of what it allocates (XLA's
//   memory-aware list scheduler);
// - kLeastPeak: the op whose run needs the fewest bytes, then the one that frees most
//   (PyTorch Inductor's "least peak memory first");
// - kDepthFirst / kBreadthFirst: the most / least recently readied op.
// Ties go to the lowest op id (the eager order), so results are deterministic. Only free
// ops are chosen; the others run by rule (executor.h). Cost: O((ops + uses) log ops) for
// the memory policies, O(ops + edges) for the traversals.
#pragma once

#include <string>
#include <vector>

#include "olla/graph/order.h"
#include "olla/schedule/executor.h"
#include "olla/schedule/memory_state.h"

namespace olla {

enum class ListPolicy { kMemoryEffect, kLeastPeak, kDepthFirst, kBreadthFirst };

inline constexpr ListPolicy kListPolicies[] = {
    ListPolicy::kMemoryEffect, ListPolicy::kLeastPeak, ListPolicy::kDepthFirst,
    ListPolicy::kBreadthFirst};

// "memory-effect", "least-peak", "dfs", "bfs".
std::string ListPolicyName(ListPolicy policy);

Order ListSchedule(const MemoryModel& model, const Timings& timings, ListPolicy policy);

}  // namespace olla
