#include "olla/schedule/lifetime_ilp.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "olla/analysis/topology.h"
#include "olla/core/check.h"
#include "olla/schedule/lifetime_ilp_model.h"

namespace olla {

LifetimeIlpResult SolveLifetimeIlp(const Graph& graph, const LifetimeIlpOptions& options,
                                   const Budget& budget) {
  LifetimeIlpModel builder(graph, options);
  LifetimeIlpResult result;
  result.steps = builder.steps();
  result.variables = builder.CountVariables();
  // Too many variables to solve, or to build and load in the time left (each variable
  // brings about three constraint terms).
  if (result.variables > options.max_variables ||
      !FitsInTime(4 * static_cast<int64_t>(result.variables), budget)) {
    result.too_large = true;
    return result;
  }
  const bool built = builder.Build(budget);
  result.variables = builder.model().num_variables();
  result.constraints = static_cast<int32_t>(builder.model().constraints().size());
  if (!built || budget.Exhausted()) return result;  // Building took the time there was.
  if (!FitsInTime(ModelEntries(builder.model()), budget)) {
    result.too_large = true;
    return result;
  }
  MilpOptions milp;
  LimitByBudget(budget, milp);
  milp.relative_gap = options.relative_gap;
  milp.threads = options.threads;
  std::vector<int32_t> step_of;
  if (options.horizon == IlpHorizon::kPaper) {
    step_of = ComputeLevels(graph).asap;
  } else if (options.start) {
    step_of = StepsOf(graph, *options.start);
  }
  if (!step_of.empty()) {
    std::vector<double> start = builder.StartValues(step_of);
    if (!start.empty()) milp.start = std::move(start);
  }
  StatusOr<MilpResult> solved = options.solver()->Solve(builder.model(), milp);
  OLLA_CHECK(solved.ok(), "the lifetime ILP is malformed: " + solved.status().message());
  budget.Spend(solved->nodes);
  const auto unit = static_cast<double>(builder.unit());
  if (solved->has_bound()) {
    result.model_bound_bytes =
        static_cast<int64_t>(std::ceil(solved->best_bound - 1e-6)) * builder.unit();
  }
  result.solver_failure = solved->failure;
  if (solved->has_solution()) {
    result.solved = true;
    result.optimal = solved->conclusion == MilpConclusion::kOptimal;
    result.order = builder.Decode(solved->values);
    result.model_peak_bytes =
        static_cast<int64_t>(std::llround(solved->objective * unit));
  }
  return result;
}

}  // namespace olla
