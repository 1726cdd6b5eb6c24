#include "olla/solver/milp_solver.h"

#include <algorithm>
#include <cmath>

#include "olla/core/check.h"

namespace olla {

void LimitByBudget(const Budget& budget, MilpOptions& options) {
  // CBC takes a finite number of seconds; a year stands for "no deadline".
  options.time_limit_seconds = std::min(budget.seconds_left(), 365.0 * 24 * 3600);
  options.max_nodes = std::max<int64_t>(budget.work_left(), 0);
}

bool FitsInTime(int64_t entries, const Budget& budget) {
  constexpr double kEntriesPerSecond = 2e6;
  return !budget.has_deadline() ||
         static_cast<double>(entries) <= budget.seconds_left() * kEntriesPerSecond;
}

int64_t ModelEntries(const MilpModel& model) {
  auto entries = static_cast<int64_t>(model.variables().size());
  for (const MilpConstraint& constraint : model.constraints())
    entries += static_cast<int64_t>(constraint.terms.size());
  return entries;
}

std::optional<ProvenLowerBound> ProveLowerBound(const MilpModel& model,
                                                const Budget& budget, int64_t unit,
                                                double tolerance,
                                                const std::string& what) {
  MilpOptions options;
  LimitByBudget(budget, options);
  StatusOr<MilpResult> solved = MakeDefaultMilpSolver()->Solve(model, options);
  OLLA_CHECK(solved.ok(), what + " is malformed: " + solved.status().message());
  budget.Spend(solved->nodes);
  if (!solved->has_bound()) return std::nullopt;
  const double units =
      std::max(0.0, solved->best_bound - tolerance) * static_cast<double>(unit);
  return ProvenLowerBound{static_cast<int64_t>(std::floor(units * (1.0 - 1e-9))),
                          solved->conclusion == MilpConclusion::kOptimal};
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
