// Tradeoff(): budget mode's memory-compute curve of one graph, the table a user reads
// to choose a memory budget. From the arena without recomputation down to the smallest
// arena recomputation reached, `points` budgets evenly apart, each planned by
// Optimize(); each budget then takes, of every plan found at any budget, the one that
// fits it with the least added compute (ties: the smaller arena). So the curve is
// monotone by construction: a tighter budget never gets less added compute, and every
// point's arena is at most its budget.
//
// The budget is shared out evenly: the plan without a budget and the search at the
// searched floor first (they fix the curve's ends), then the budgets between them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "olla/core/budget.h"
#include "olla/core/status.h"
#include "olla/graph/graph.h"
#include "olla/pipeline/option_table.h"
#include "olla/remat/recompute_floor.h"

namespace olla {

inline constexpr int kMinTradeoffPoints = 2;
inline constexpr int kMaxTradeoffPoints = 100;

struct TradeoffPoint {
  int64_t budget_bytes = 0;
  // Index into Tradeoff::searches of the plan this budget runs; none when no plan
  // found fits it.
  std::optional<size_t> plan;
};

struct Tradeoff {
  // Optimize() at each budget tried, widest first: the first has no budget (the arena
  // without recomputation), the second the searched floor's (the least arena budget
  // mode can reach).
  std::vector<OptimizeResult> searches;
  std::vector<TradeoffPoint> points;  // Widest budget first.
  // The least arena of every plan and of the plans budget mode searches, proven
  // (remat/recompute_floor.h).
  RecomputeFloor floor;
};

// Of `searches`' plans, the one that fits `budget` with the least added compute; the
// smaller arena on a tie, then the earlier search. None when no plan fits.
std::optional<size_t> CheapestPlanFitting(const std::vector<OptimizeResult>& searches,
                                          int64_t budget);

// An error unless kMinTradeoffPoints <= points <= kMaxTradeoffPoints; front ends add
// the name their user wrote (--points, points=).
Status CheckTradeoffPoints(int64_t points);

// `request`'s memory budget, if any, is ignored: the curve sets its own. An error for
// `points` out of range (CheckTradeoffPoints) or a graph Optimize() refuses.
StatusOr<Tradeoff> ComputeTradeoff(const Graph& graph, const OptimizeRequest& request,
                                   int points, const Budget& budget);

}  // namespace olla
