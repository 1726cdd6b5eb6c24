#include "olla/report/tradeoff_report.h"

#include <fmt/format.h>

#include "olla/core/bytes.h"
#include "olla/remat/cost.h"

namespace olla {
namespace {

double AddedFraction(const OptimizeResult& result) {
  return result.recompute ? result.recompute->added_fraction() : 0.0;
}

int32_t RecomputedOps(const OptimizeResult& result) {
  return result.recompute ? result.recompute->recomputed_ops : 0;
}

// "no budget" for the search without one, else its budget.
std::string FoundAt(const OptimizeResult& result) {
  return result.memory_budget ? FormatBytes(*result.memory_budget) : "no budget";
}

}  // namespace

std::string TradeoffText(const Graph& graph, const Tradeoff& tradeoff) {
  const RecomputeFloor& floor = tradeoff.floor;
  std::string out = fmt::format(
      "olla tradeoff: {} ({} ops), {} budgets; recompute floor {}{}{}; added compute "
      "from costs {}\n",
      graph.name().empty() ? "graph" : graph.name(), graph.num_ops(),
      tradeoff.points.size(), FormatBytes(floor.every_plan.bytes),
      floor.searched_is_higher()
          ? fmt::format(", searched floor {}", FormatBytes(floor.searched.bytes))
          : "",
      floor.complete ? " (proven)" : " (partial: the limit stopped it)",
      CostSource(graph));
  out += fmt::format("{:>24}  {:>24}  {:>13}  {:>10}  {}\n", "budget", "arena",
                     "added compute", "recomputed", "plan found at");
  for (const TradeoffPoint& point : tradeoff.points) {
    if (!point.plan) {
      out += fmt::format("{:>24}  {:>24}  {:>13}  {:>10}  {}\n",
                         FormatBytes(point.budget_bytes), "-", "-", "-",
                         "no plan found fits");
      continue;
    }
    const OptimizeResult& result = tradeoff.searches[*point.plan];
    out +=
        fmt::format("{:>24}  {:>24}  {:>12.2f}%  {:>10}  {}\n",
                    FormatBytes(point.budget_bytes), FormatBytes(result.arena_bytes()),
                    100 * AddedFraction(result), RecomputedOps(result), FoundAt(result));
  }
  return out;
}

nlohmann::ordered_json TradeoffJson(const Graph& graph, const Tradeoff& tradeoff) {
  nlohmann::ordered_json json;
  json["graph"] = graph.name();
  json["ops"] = graph.num_ops();
  json["recompute_floor_bytes"] = tradeoff.floor.every_plan.bytes;
  json["searched_floor_bytes"] = tradeoff.floor.searched.bytes;
  json["recompute_floor_complete"] = tradeoff.floor.complete;
  json["cost_source"] = CostSource(graph);
  json["points"] = nlohmann::ordered_json::array();
  for (const TradeoffPoint& point : tradeoff.points) {
    nlohmann::ordered_json entry;
    entry["budget_bytes"] = point.budget_bytes;
    if (point.plan) {
      const OptimizeResult& result = tradeoff.searches[*point.plan];
      entry["arena_bytes"] = result.arena_bytes();
      entry["added_compute"] = AddedFraction(result);
      entry["recomputed_ops"] = RecomputedOps(result);
      entry["found_at_budget_bytes"] = result.memory_budget
                                           ? nlohmann::ordered_json(*result.memory_budget)
                                           : nlohmann::ordered_json(nullptr);
      entry["search"] = *point.plan;
    } else {
      entry["arena_bytes"] = nullptr;
    }
    json["points"].push_back(entry);
  }
  return json;
}

}  // namespace olla
