#include "olla/schedule/scheduler.h"

#include <algorithm>
#include <chrono>

#include "olla/analysis/lower_bounds.h"
#include "olla/schedule/heuristics.h"
#include "olla/schedule/local_search.h"
#include "olla/schedule/memory_state.h"
#include "olla/schedule/piecewise.h"

namespace olla {

using Clock = std::chrono::steady_clock;

namespace {

bool IsMethod(const std::string& method) {
  return std::find(std::begin(kScheduleMethods), std::end(kScheduleMethods), method) !=
         std::end(kScheduleMethods);
}

Clock::time_point After(Clock::time_point start, double seconds) {
  return start + std::chrono::duration_cast<Clock::duration>(
                     std::chrono::duration<double>(seconds));
}

}  // namespace

StatusOr<ScheduleResult> Schedule(const Graph& graph, const ScheduleOptions& options) {
  const std::string& method = options.method;
  if (!IsMethod(method)) return InvalidInput("unknown schedule method '" + method + "'");
  const auto started = Clock::now();
  const auto deadline = After(started, options.time_limit_seconds);
  // `auto` leaves the last part of its time to local search.
  const auto exact_deadline =
      method == "auto" ? After(started, 0.6 * options.time_limit_seconds) : deadline;
  const MemoryModel model(graph);
  const Timings timings(model, options.rules);
  ScheduleResult result;
  result.eager_peak_bytes = PeakOf(model, EagerOrder(graph));
  // The forced-live set contains each op's own footprint, so its largest value is the
  // graph's bound (lower_bounds.h); the exact search prunes with the values per op.
  const std::vector<int64_t> forced_live = ForcedLiveBytes(graph);
  result.lower_bound_bytes = *std::max_element(forced_live.begin(), forced_live.end());

  ScoredOrder chosen = method == "eager" ? EagerSchedule(model, options.rules)
                                         : BestHeuristic(model, options.rules);
  result.best_heuristic = chosen.method;
  result.best_heuristic_peak_bytes = chosen.peak_bytes;
  if (method == "dp" || method == "auto") {
    if (chosen.peak_bytes > result.lower_bound_bytes) {
      const Order incumbent = FollowRules(model, timings, chosen.order);
      PiecewiseOptions piecewise;
      piecewise.lower_bound = result.lower_bound_bytes;
      piecewise.deadline = exact_deadline;
      piecewise.progress = options.progress;
      PiecewiseResult pieces =
          ImprovePieces(model, timings, forced_live, incumbent, piecewise);
      const int64_t peak = PeakOf(model, pieces.order);
      for (const PieceOutcome& piece : pieces.pieces)
        result.pieces.push_back({piece.free_ops, piece.method, piece.optimal});
      result.lower_bound_bytes = std::max(result.lower_bound_bytes, pieces.proven_bound);
      if (peak < chosen.peak_bytes) chosen = {"dp", std::move(pieces.order), peak};
    }
  }
  if (method == "ilp") {
    LifetimeIlpOptions ilp;
    ilp.horizon = options.ilp_horizon;
    ilp.time_limit_seconds =
        std::max(1.0, std::chrono::duration<double>(deadline - Clock::now()).count());
    ilp.threads = options.threads;
    ilp.lower_bound_bytes = result.lower_bound_bytes;
    ilp.start = chosen.order;
    if (options.progress) options.progress("lifetime ILP");
    LifetimeIlpResult solved = SolveLifetimeIlp(graph, ilp);
    if (solved.solved) {
      Order order = FollowRules(model, timings, solved.order);
      const int64_t peak = PeakOf(model, order);
      if (peak < chosen.peak_bytes) chosen = {"ilp", std::move(order), peak};
      // One op per step is the memory model exactly: its bound holds for every order.
      if (ilp.horizon == IlpHorizon::kOneOpPerStep)
        result.lower_bound_bytes =
            std::max(result.lower_bound_bytes, solved.model_bound_bytes);
    }
    result.ilp = std::move(solved);
  }
  const bool settled = chosen.peak_bytes <= result.lower_bound_bytes;
  if ((method == "local" || method == "auto") && !settled) {
    LocalSearchOptions local;
    local.target_peak = result.lower_bound_bytes;
    local.deadline = deadline;
    if (options.progress) options.progress("local search");
    LocalSearchResult search = LocalSearch(model, timings, chosen.order, local);
    if (search.peak_bytes < chosen.peak_bytes)
      chosen = {"local", std::move(search.order), search.peak_bytes};
  }
  result.order = std::move(chosen.order);
  result.peak_bytes = chosen.peak_bytes;
  result.method = chosen.method;
  result.optimal = result.peak_bytes <= result.lower_bound_bytes;
  return result;
}

}  // namespace olla
