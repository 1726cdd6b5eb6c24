#include "olla/pipeline/tradeoff.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

namespace olla {
namespace {

int64_t AddedCost(const OptimizeResult& result) {
  return result.recompute ? result.recompute->added_cost : 0;
}

}  // namespace

std::optional<size_t> CheapestPlanFitting(const std::vector<OptimizeResult>& searches,
                                          int64_t budget) {
  std::optional<size_t> best;
  for (size_t i = 0; i < searches.size(); ++i) {
    const OptimizeResult& result = searches[i];
    if (!result.plan || result.arena_bytes() > budget) continue;
    if (!best || std::pair(AddedCost(result), result.arena_bytes()) <
                     std::pair(AddedCost(searches[*best]), searches[*best].arena_bytes()))
      best = i;
  }
  return best;
}

Status CheckTradeoffPoints(int64_t points) {
  if (points < kMinTradeoffPoints || points > kMaxTradeoffPoints) {
    return InvalidInput(fmt::format("must be an integer from {} to {}, got {}",
                                    kMinTradeoffPoints, kMaxTradeoffPoints, points));
  }
  return OkStatus();
}

StatusOr<Tradeoff> ComputeTradeoff(const Graph& graph, const OptimizeRequest& request,
                                   int points, const Budget& budget) {
  if (Status status = CheckTradeoffPoints(points); !status.ok())
    return status.WithContext("points");
  Tradeoff tradeoff;
  // Each search gets an even share of what the earlier ones left: of `points` searches
  // until the two ends fix how many budgets lie between them.
  int searches_left = points;
  auto search = [&](std::optional<int64_t> memory_budget) -> Status {
    OptimizeRequest at = request;
    at.options.memory_budget = memory_budget;
    StatusOr<OptimizeResult> result =
        Optimize(graph, at, budget.Split(1.0 / std::max(searches_left--, 1)));
    if (!result.ok()) return result.status();
    tradeoff.searches.push_back(std::move(result).value());
    return OkStatus();
  };

  // The widest end: the arena without recomputation.
  if (Status status = search(std::nullopt); !status.ok()) return status;
  const int64_t widest = tradeoff.searches[0].arena_bytes();
  tradeoff.floor = ComputeRecomputeFloor(graph, budget);
  // The tightest end: the smallest arena a search at the searched floor reaches (the
  // floor itself when it fits; a refuted floor leaves the widest end alone).
  const int64_t floor = tradeoff.floor.searched.bytes;
  if (floor < widest) {
    if (Status status = search(floor); !status.ok()) return status;
  }
  int64_t tightest = widest;
  for (const OptimizeResult& result : tradeoff.searches) {
    if (result.plan) tightest = std::min(tightest, result.arena_bytes());
  }
  // The budgets between, evenly apart, each a multiple of the alignment (rounded
  // towards the tighter end, never past it).
  const int64_t alignment = std::max<int64_t>(request.options.alignment, 1);
  std::vector<int64_t> budgets = {widest};
  for (int i = 1; i + 1 < points && tightest < widest; ++i) {
    const int64_t exact = widest - (widest - tightest) * i / (points - 1);
    budgets.push_back(std::max(tightest, exact / alignment * alignment));
  }
  if (tightest < widest) budgets.push_back(tightest);
  budgets.erase(std::unique(budgets.begin(), budgets.end()), budgets.end());
  searches_left = static_cast<int>(budgets.size()) - 2;
  for (size_t i = 1; i + 1 < budgets.size(); ++i) {
    if (Status status = search(budgets[i]); !status.ok()) return status;
  }
  for (int64_t bytes : budgets) {
    tradeoff.points.push_back({bytes, CheapestPlanFitting(tradeoff.searches, bytes)});
  }
  return tradeoff;
}

}  // namespace olla
