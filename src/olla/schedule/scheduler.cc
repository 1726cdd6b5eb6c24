#include "olla/schedule/scheduler.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "olla/analysis/case_split_bound.h"
#include "olla/analysis/lower_bounds.h"
#include "olla/analysis/min_cut_bound.h"
#include "olla/analysis/timeline.h"
#include "olla/analysis/topology.h"
#include "olla/core/names.h"
#include "olla/graph/pinned.h"
#include "olla/schedule/heuristics.h"
#include "olla/schedule/local_search.h"
#include "olla/schedule/memory_state.h"
#include "olla/schedule/piecewise.h"

namespace olla {
namespace {

// Raises result's bound with cuts at the ops where `order` (peaking at `peak`) is above
// it (analysis/min_cut_bound.h), in a quarter of the budget, then with case splits at
// its peak ops (analysis/case_split_bound.h), in `split_share` of what is left.
void RaiseBound(const Graph& graph, const Order& order, int64_t peak,
                const Budget& budget, double split_share, ScheduleResult& result) {
  if (peak <= result.lower_bound_bytes || budget.Exhausted()) return;
  const MinCutResult cut =
      MinCutBound(graph, LiveBytesByOp(graph, order), result.lower_bound_bytes, peak,
                  budget.Split(0.25));
  if (cut.bound_bytes > result.lower_bound_bytes) {
    result.lower_bound_bytes = cut.bound_bytes;
    result.bound_method = "min-cut";
  }
  result.min_cut_ops += cut.ops_computed;
  if (peak <= result.lower_bound_bytes || budget.Exhausted()) return;
  const CaseSplitResult split = CaseSplitBound(graph, order, result.lower_bound_bytes,
                                               peak, budget.Split(split_share));
  if (split.bound_bytes > result.lower_bound_bytes) {
    result.lower_bound_bytes = split.bound_bytes;
    result.bound_method = "case-split";
    result.case_splits = split.splits;
  }
  result.min_cut_ops += split.cuts;
}

// The methods on a graph without pins (or with pins made edges).
// `eager_peak`: the eager order's peak, which the caller has measured.
// `ruled_eager`: EagerSchedule(model, options.rules), computed once.
ScheduleResult ScheduleGraph(const MemoryModel& model, int64_t eager_peak,
                             const ScheduleOptions& options, ScoredOrder ruled_eager,
                             const Budget& budget) {
  const Graph& graph = model.graph();
  const std::string& method = options.method;
  // Built when a search needs them (a second at a million ops).
  std::optional<Timings> built_timings;
  auto timings = [&]() -> const Timings& {
    if (!built_timings) built_timings.emplace(model, options.rules);
    return *built_timings;
  };
  ScheduleResult result;
  result.eager_peak_bytes = eager_peak;
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

  // With no time left (loading a huge graph took it all), the eager order under the
  // rules is the answer.
  ScoredOrder chosen = method == "eager" || budget.OutOfTime()
                           ? std::move(ruled_eager)
                           : BestHeuristic(model, options.rules, budget);
  result.best_heuristic = chosen.method;
  result.best_heuristic_peak_bytes = chosen.peak_bytes;
  // The bound is raised before the searches, so that pieces at the raised bound are
  // not searched and local search stops there, and again with each order a search
  // found, whose peak may sit at other ops.
  const bool cuts = method == "auto" || method == "local" || method == "dp";
  Order last_raised;
  auto raise_bound = [&](const Order& order, int64_t peak, double split_share = 0.25) {
    if (!cuts || order.ops == last_raised.ops) return;
    last_raised = order;
    const auto start = Budget::Clock::now();
    RaiseBound(graph, order, peak, budget, split_share, result);
    result.bound_seconds +=
        std::chrono::duration<double>(Budget::Clock::now() - start).count();
  };
  raise_bound(chosen.order, chosen.peak_bytes);
  // Cutting a million-op graph into pieces takes a second: not when no time is left.
  if ((method == "dp" || method == "auto") &&
      chosen.peak_bytes > result.lower_bound_bytes && !budget.OutOfTime()) {
    const Order incumbent = FollowRules(model, timings(), chosen.order);
    PiecewiseOptions piecewise;
    piecewise.lower_bound = result.lower_bound_bytes;
    piecewise.progress = options.progress;
    // `auto` leaves the last part of its budget to local search.
    PiecewiseResult pieces =
        ImprovePieces(model, timings(), forced_live, incumbent, piecewise,
                      method == "auto" ? budget.Split(0.6) : budget);
    const int64_t peak = PeakOf(model, pieces.order);
    for (const PieceOutcome& piece : pieces.pieces)
      result.pieces.push_back({piece.free_ops, piece.method, piece.optimal});
    if (pieces.proven_bound > result.lower_bound_bytes) {
      result.lower_bound_bytes = pieces.proven_bound;
      result.bound_method = "pieces";
    }
    if (peak < chosen.peak_bytes) chosen = {"dp", std::move(pieces.order), peak};
  }
  if (method == "ilp") {
    LifetimeIlpOptions ilp;
    ilp.horizon = options.ilp_horizon;
    ilp.threads = options.threads;
    ilp.lower_bound_bytes = result.lower_bound_bytes;
    ilp.start = chosen.order;
    if (options.progress) options.progress("lifetime ILP");
    LifetimeIlpResult solved = SolveLifetimeIlp(graph, ilp, budget);
    if (solved.solved) {
      Order order = FollowRules(model, timings(), solved.order);
      const int64_t peak = PeakOf(model, order);
      if (peak < chosen.peak_bytes) chosen = {"ilp", std::move(order), peak};
      // One op per step is the memory model exactly: its bound holds for every order.
      if (ilp.horizon == IlpHorizon::kOneOpPerStep &&
          solved.model_bound_bytes > result.lower_bound_bytes) {
        result.lower_bound_bytes = solved.model_bound_bytes;
        result.bound_method = "ilp";
      }
    }
    result.ilp = std::move(solved);
  }
  raise_bound(chosen.order, chosen.peak_bytes);
  const bool settled = chosen.peak_bytes <= result.lower_bound_bytes;
  if ((method == "local" || method == "auto") && !settled && !budget.OutOfTime()) {
    LocalSearchOptions local;
    local.target_peak = result.lower_bound_bytes;
    if (options.progress) options.progress("local search");
    // A fifth is left to bound the order it finds.
    LocalSearchResult search =
        LocalSearch(model, timings(), chosen.order, local, budget.Split(0.8));
    if (search.peak_bytes < chosen.peak_bytes)
      chosen = {"local", std::move(search.order), search.peak_bytes};
    raise_bound(chosen.order, chosen.peak_bytes, /*split_share=*/1.0);
  }
  result.order = std::move(chosen.order);
  result.peak_bytes = chosen.peak_bytes;
  result.method = chosen.method;
  result.optimal = result.peak_bytes <= result.lower_bound_bytes;
  if (!result.optimal) result.stopped_by = budget.Reached();
  return result;
}

// The updates rule restricts the orders searched (optimizer ops as soon as ready),
// which usually costs nothing. On some graphs it costs a lot (shufflenet_v2 with SGD
// weight decay: each update's temporaries land in the backward's peak, and under the
// rule every order peaks 3 % above eager, 18 % above the best order without it). When
// the eager order under the rule peaks above the eager order itself, the search runs
// without the rule, and the bound is the one for all orders.
ScheduleResult ScheduleWithFallback(const Graph& graph, const ScheduleOptions& options,
                                    const Budget& budget) {
  const MemoryModel model(graph);
  const int64_t eager = PeakOf(model, EagerOrder(graph));
  ScoredOrder ruled = EagerSchedule(model, options.rules);
  if (options.rules.updates_asap && ruled.peak_bytes > eager) {
    ScheduleOptions free_updates = options;
    free_updates.rules.updates_asap = false;
    ScheduleResult result = ScheduleGraph(
        model, eager, free_updates, EagerSchedule(model, free_updates.rules), budget);
    result.updates_rule_dropped = true;
    return result;
  }
  return ScheduleGraph(model, eager, options, std::move(ruled), budget);
}

}  // namespace

bool IsScheduleMethod(const std::string& method) {
  return IsOneOf(method, kScheduleMethods);
}

StatusOr<ScheduleResult> Schedule(const Graph& graph, const ScheduleOptions& options,
                                  const Budget& budget) {
  if (!IsScheduleMethod(options.method))
    return InvalidInput("unknown schedule method '" + options.method + "'");
  if (options.pins.empty()) return ScheduleWithFallback(graph, options, budget);
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
  ScheduleResult result = ScheduleWithFallback(pinned.graph, pinned_options, budget);
  // The pins are edges of the pinned graph: an order valid for it honours them.
  OLLA_CHECK(CheckValidOrder(pinned.graph, result.order).ok(),
             "schedule/" + result.method + " broke a pinned order");
  for (OpId& op : result.order.ops) op = pinned.original[op.index()];
  result.eager_peak_bytes = PeakOf(MemoryModel(graph), EagerOrder(graph));
  return result;
}

}  // namespace olla
