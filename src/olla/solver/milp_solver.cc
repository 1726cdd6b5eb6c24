#include "olla/solver/milp_solver.h"

#include <algorithm>

namespace olla {

void LimitByBudget(const Budget& budget, MilpOptions& options) {
  // CBC takes a finite number of seconds; a year stands for "no deadline".
  options.time_limit_seconds = std::min(budget.seconds_left(), 365.0 * 24 * 3600);
  options.max_nodes = std::max<int64_t>(budget.work_left(), 0);
}

void FallBackToStart(const MilpModel& model, const MilpOptions& options,
                     MilpResult& result) {
  if (result.has_solution() || !options.start || !model.IsFeasible(*options.start)) {
    return;
  }
  result.conclusion = MilpConclusion::kFeasible;
  result.values = *options.start;
  result.objective = model.Objective(result.values);
}

}  // namespace olla
