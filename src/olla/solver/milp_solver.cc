#include "olla/solver/milp_solver.h"

namespace olla {

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
