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
    for (const MilpVariable& v : model.variables()) {
      Cbc_addCol(m, v.name.c_str(), v.lower, v.upper, v.objective, v.integer ? 1 : 0, 0,
                 nullptr, nullptr);
    }
    std::vector<int> columns;
    std::vector<double> coefficients;
    for (const MilpConstraint& c : model.constraints()) {
      columns.clear();
      coefficients.clear();
      for (const MilpTerm& t : c.terms) {
        columns.push_back(t.variable);
        coefficients.push_back(t.coefficient);
      }
      const int nz = static_cast<int>(columns.size());
      // CBC rows have one sense; a two-sided range becomes two rows.
      if (c.lower == c.upper) {
        Cbc_addRow(m, c.name.c_str(), nz, columns.data(), coefficients.data(), 'E',
                   c.lower);
        continue;
      }
      if (c.lower > -kInfinity) {
        Cbc_addRow(m, c.name.c_str(), nz, columns.data(), coefficients.data(), 'G',
                   c.lower);
      }
      if (c.upper < kInfinity) {
        Cbc_addRow(m, c.name.c_str(), nz, columns.data(), coefficients.data(), 'L',
                   c.upper);
      }
    }
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
