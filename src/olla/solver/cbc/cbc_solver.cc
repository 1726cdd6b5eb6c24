// The CBC adapter: the only file in olla that includes a COIN-OR header.
//
// Facts about Debian's CBC 2.10.8 it relies on: Cbc_setMaximumSeconds counts CPU
// seconds unless "timeMode elapsed" is set; "threads N" is nondeterministic but
// "threads 100+N" runs N threads deterministically; the proven bound is
// Cbc_getBestPossibleObjValue; Cbc_setMIPStartI takes a start by column index.
#include <algorithm>
#include <limits>
#include <memory>
#include <numeric>
#include <string>

#include <Cbc_C_Interface.h>

#include "olla/solver/milp_solver.h"

namespace olla {
namespace {

// CBC's infinity is the largest double.
double Bound(double value) {
  if (value >= kInfinity) return std::numeric_limits<double>::max();
  if (value <= -kInfinity) return -std::numeric_limits<double>::max();
  return value;
}

// Loads the whole model in one call, column-major: adding rows one at a time costs
// CBC a copy of its matrix per row (quadratic: a 291-op lifetime ILP took minutes to
// load before its solve began, outside any time limit). Two-sided rows stay one row.
void LoadModel(const MilpModel& model, Cbc_Model* m) {
  const size_t columns = model.variables().size();
  const size_t rows = model.constraints().size();
  std::vector<int> start(columns + 1, 0);
  for (const MilpConstraint& c : model.constraints()) {
    for (const MilpTerm& t : c.terms) ++start[static_cast<size_t>(t.variable) + 1];
  }
  for (size_t col = 0; col < columns; ++col) start[col + 1] += start[col];
  std::vector<int> index(static_cast<size_t>(start[columns]));
  std::vector<double> value(index.size());
  std::vector<int> next(start.begin(), start.end() - 1);
  std::vector<double> row_lower(rows), row_upper(rows);
  for (size_t row = 0; row < rows; ++row) {
    const MilpConstraint& c = model.constraints()[row];
    row_lower[row] = Bound(c.lower);
    row_upper[row] = Bound(c.upper);
    for (const MilpTerm& t : c.terms) {
      const auto at = static_cast<size_t>(next[static_cast<size_t>(t.variable)]++);
      index[at] = static_cast<int>(row);
      value[at] = t.coefficient;
    }
  }
  std::vector<double> lower(columns), upper(columns), objective(columns);
  for (size_t col = 0; col < columns; ++col) {
    const MilpVariable& v = model.variables()[col];
    lower[col] = Bound(v.lower);
    upper[col] = Bound(v.upper);
    objective[col] = v.objective;
  }
  Cbc_loadProblem(m, static_cast<int>(columns), static_cast<int>(rows), start.data(),
                  index.data(), value.data(), lower.data(), upper.data(),
                  objective.data(), row_lower.data(), row_upper.data());
  for (size_t col = 0; col < columns; ++col) {
    if (model.variables()[col].integer) Cbc_setInteger(m, static_cast<int>(col));
  }
}

class CbcSolver : public MilpSolver {
 public:
  std::string name() const override { return "cbc"; }

  StatusOr<MilpResult> Solve(const MilpModel& model,
                             const MilpOptions& options) override {
    OLLA_RETURN_IF_ERROR(model.Validate());
    if (options.start && options.start->size() != model.variables().size()) {
      return InvalidInput("MIP start has " + std::to_string(options.start->size()) +
                          " values for " + std::to_string(model.variables().size()) +
                          " variables");
    }
    const std::unique_ptr<Cbc_Model, void (*)(Cbc_Model*)> cbc(Cbc_newModel(),
                                                               Cbc_deleteModel);
    Cbc_Model* m = cbc.get();
    Cbc_setLogLevel(m, 0);
    LoadModel(model, m);
    Cbc_setObjSense(m, model.maximize() ? -1.0 : 1.0);
    Cbc_setParameter(m, "timeMode", "elapsed");
    Cbc_setMaximumSeconds(m, options.time_limit_seconds);
    if (options.max_nodes < std::numeric_limits<int>::max()) {
      Cbc_setMaximumNodes(m, static_cast<int>(std::max<int64_t>(options.max_nodes, 0)));
    }
    Cbc_setAllowableFractionGap(m, options.relative_gap);
    if (options.threads > 1) {
      Cbc_setParameter(m, "threads", std::to_string(100 + options.threads).c_str());
    }
    if (options.start) {
      std::vector<int> indices(options.start->size());
      std::iota(indices.begin(), indices.end(), 0);
      Cbc_setMIPStartI(m, static_cast<int>(indices.size()), indices.data(),
                       options.start->data());
    }
    Cbc_solve(m);

    MilpResult result;
    const int columns_count = Cbc_getNumCols(m);
    const bool has_solution = Cbc_numberSavedSolutions(m) > 0 || Cbc_isProvenOptimal(m);
    if (Cbc_isProvenOptimal(m)) {
      result.conclusion = MilpConclusion::kOptimal;
    } else if (Cbc_isProvenInfeasible(m)) {
      result.conclusion = MilpConclusion::kInfeasible;
    } else {
      result.conclusion =
          has_solution ? MilpConclusion::kFeasible : MilpConclusion::kNoSolution;
    }
    if (result.has_solution()) {
      const double* values = Cbc_getColSolution(m);
      result.values.assign(values, values + columns_count);
      result.objective = model.Objective(result.values);
    }
    result.nodes = Cbc_getNodeCount(m);
    result.best_bound = result.conclusion == MilpConclusion::kOptimal
                            ? result.objective
                            : Cbc_getBestPossibleObjValue(m);
    FallBackToStart(model, options, result);
    return result;
  }
};

}  // namespace

std::unique_ptr<MilpSolver> MakeCbcSolver() { return std::make_unique<CbcSolver>(); }

}  // namespace olla
