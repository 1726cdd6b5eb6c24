#include "olla/schedule/scheduler.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "olla/analysis/lower_bounds.h"
#include "olla/analysis/topology.h"
#include "olla/core/names.h"
#include "olla/graph/pinned.h"
#include "olla/schedule/order_search.h"
#include "olla/schedule/order_searches.h"
#include "olla/schedule/search_wrappers.h"

namespace olla {
namespace {

// Each method as a composition of searches (order_search.h). The bound is raised only
// by the methods that search past the heuristics; `auto` leaves the last part of its
// budget to local search, and of that a fifth to bound the order it finds.
std::unique_ptr<OrderSearch> MethodSearch(const std::string& method) {
  std::vector<std::unique_ptr<OrderSearch>> steps;
  if (method == "eager") return Sequence(std::move(steps));
  if (method == "greedy" || method == "ilp") {
    steps.push_back(HeuristicSearch());
    if (method == "ilp") steps.push_back(LifetimeIlpSearch());
    return Sequence(std::move(steps));
  }
  steps.push_back(RaisingTheBound(HeuristicSearch()));
  if (method == "dp") steps.push_back(RaisingTheBound(PieceSearch()));
  if (method == "auto") steps.push_back(RaisingTheBound(WithShare(0.6, PieceSearch())));
  if (method == "local" || method == "auto") {
    steps.push_back(
        RaisingTheBound(WithShare(0.8, LocalOrderSearch()), /*split_share=*/1.0));
  }
  return Sequence(std::move(steps));
}

// The method on a graph without pins (or with pins made edges), from the eager order
// under the rules, with the forced-live bound.
ScheduleResult ScheduleGraph(const Graph& graph, const ScheduleOptions& options,
                             const Budget& budget) {
  const MemoryModel model(graph);
  SearchState state;
  ScheduleResult& result = state.result;
  result.eager_peak_bytes = PeakOf(model, EagerOrder(graph));
  state.StartFrom(EagerSchedule(model, options.rules));
  // The forced-live set contains each op's own footprint, so its largest value is the
  // graph's bound (lower_bounds.h); the exact search prunes with the values per op.
  OLLA_CHECK(options.forced_live.empty() ||
                 options.forced_live.size() == static_cast<size_t>(graph.num_ops()),
             "forced_live must hold one value per op");
  // The bound may take a quarter of the budget; past it, it is weaker but valid.
  const std::vector<int64_t> forced_live =
      options.forced_live.empty() ? ComputeForcedLive(graph, budget.Split(0.25)).bytes
                                  : options.forced_live;
  result.lower_bound_bytes = *std::max_element(forced_live.begin(), forced_live.end());

  const SearchContext context(model, options.rules, forced_live, options);
  UpdatesRuleFallback(MethodSearch(options.method))->Improve(context, state, budget);
  result.optimal = result.peak_bytes <= result.lower_bound_bytes;
  if (!result.optimal) result.stopped_by = budget.Reached();
  return std::move(result);
}

}  // namespace

bool IsScheduleMethod(const std::string& method) {
  return IsOneOf(method, kScheduleMethods);
}

StatusOr<ScheduleResult> Schedule(const Graph& graph, const ScheduleOptions& options,
                                  const Budget& budget) {
  if (!IsScheduleMethod(options.method))
    return InvalidInput("unknown schedule method '" + options.method + "'");
  if (options.pins.empty()) return ScheduleGraph(graph, options, budget);
  // Pins become precedence edges of a renumbered graph; the order maps back by op.
  StatusOr<PinnedGraph> pinning = PinChains(graph, options.pins);
  if (!pinning.ok()) {
    return options.pins_source.empty()
               ? pinning.status()
               : pinning.status().WithContext(options.pins_source);
  }
  const PinnedGraph& pinned = *pinning;
  ScheduleOptions pinned_options = options;
  pinned_options.forced_live.clear();  // The pinned graph's differ.
  ScheduleResult result = ScheduleGraph(pinned.graph, pinned_options, budget);
  // The pins are edges of the pinned graph: an order valid for it honours them.
  OLLA_CHECK(CheckValidOrder(pinned.graph, result.order).ok(),
             "schedule/" + result.method + " broke a pinned order");
  for (OpId& op : result.order.ops) op = pinned.original[op.index()];
  result.eager_peak_bytes = PeakOf(MemoryModel(graph), EagerOrder(graph));
  return result;
}

}  // namespace olla
