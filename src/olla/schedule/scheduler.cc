#include "olla/schedule/scheduler.h"

#include <algorithm>

#include "olla/analysis/lower_bounds.h"
#include "olla/schedule/heuristics.h"
#include "olla/schedule/memory_state.h"

namespace olla {

StatusOr<ScheduleResult> Schedule(const Graph& graph, const ScheduleOptions& options) {
  const MemoryModel model(graph);
  ScheduleResult result;
  result.eager_peak_bytes = PeakOf(model, EagerOrder(graph));
  result.lower_bound_bytes = ComputeLowerBounds(graph).best();

  ScoredOrder chosen;
  if (options.method == "eager") {
    chosen = EagerSchedule(model, options.rules);
  } else if (options.method == "greedy" || options.method == "auto") {
    chosen = BestHeuristic(model, options.rules);
  } else {
    return InvalidInput("unknown schedule method '" + options.method + "'");
  }
  result.best_heuristic = chosen.method;
  result.best_heuristic_peak_bytes = chosen.peak_bytes;
  result.order = std::move(chosen.order);
  result.peak_bytes = chosen.peak_bytes;
  result.method = chosen.method;
  result.optimal = result.peak_bytes <= result.lower_bound_bytes;
  return result;
}

}  // namespace olla
