// MilpSolver: the small interface every MILP backend implements.
//
// Solve() fails (a Status) only when the call itself cannot be made: an invalid model,
// a start of the wrong length. What the solver concludes (optimal, feasible when a limit
// stopped it with a solution in hand, infeasible, or no solution within the limits) is
// the result, with the best proven bound on the objective.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "olla/core/budget.h"
#include "olla/core/status.h"
#include "olla/solver/milp_model.h"

namespace olla {

struct MilpOptions {
  double time_limit_seconds = 60.0;  // Wall clock.
  // Branch-and-bound nodes: the deterministic limit (tests use it, not the clock).
  int64_t max_nodes = std::numeric_limits<int64_t>::max();
  double relative_gap = 0.0;  // Stop once (incumbent - bound) / incumbent is below.
  int threads = 1;            // Deterministic for any count.
  std::optional<std::vector<double>> start;  // A feasible solution to start from.
};

enum class MilpConclusion { kOptimal, kFeasible, kInfeasible, kNoSolution };

struct MilpResult {
  MilpConclusion conclusion = MilpConclusion::kNoSolution;
  std::vector<double> values;  // One per variable, when a solution was found.
  double objective = 0.0;
  double best_bound = 0.0;  // No solution is better than this (may be infinite).
  int64_t nodes = 0;        // Branch-and-bound nodes explored.
  std::string failure;      // Set when the solver died and left no result.

  bool has_solution() const {
    return conclusion == MilpConclusion::kOptimal ||
           conclusion == MilpConclusion::kFeasible;
  }
  // Whether best_bound says something: solvers report "no bound" as +-1e50 or inf.
  bool has_bound() const { return std::abs(best_bound) < 1e30; }
};

class MilpSolver {
 public:
  virtual ~MilpSolver() = default;
  virtual std::string name() const = 0;
  virtual StatusOr<MilpResult> Solve(const MilpModel& model,
                                     const MilpOptions& options) = 0;
};

// Every backend ends with this: a result without a solution becomes the start when the
// caller gave a feasible one, so a start always comes back, or better. (CBC can stop on
// its time limit before it has read the start; a crashed solver leaves nothing.)
void FallBackToStart(const MilpModel& model, const MilpOptions& options,
                     MilpResult& result);

// The MILP limits that fit what is left of `budget`: its seconds and its work as nodes.
// After the solve, `budget.Spend(result.nodes)` charges the work.
void LimitByBudget(const Budget& budget, MilpOptions& options);

// Whether a model of `entries` (variables plus constraint terms) can be built, sent to
// the solver and loaded in the time `budget` has left, at two million entries a second
// (measured here: roberta_base.train.b1's lifetime ILP, 2.8M variables and 3.4M
// constraints, took 2.5 s past its limit to encode and send alone). An ILP that does
// not fit is not built: its start stands. Always true without a deadline, so work
// limits decide alone.
bool FitsInTime(int64_t entries, const Budget& budget);
// The entries of `model`, for FitsInTime.
int64_t ModelEntries(const MilpModel& model);

// A lower bound on a minimisation's optimum in whole units, where the model's objective
// counts `unit`s: `model` solved by the default solver within `budget` (charged its
// nodes), its best bound lowered by `tolerance` (in objective units, for the solver's
// cutoff increment: a proven optimum may lie that much above a solution it admits) and
// rounded down. Nullopt when the solver ends with no bound. A malformed model is olla's
// bug: `what` names it in the failed check.
struct ProvenLowerBound {
  int64_t value = 0;
  bool optimal = false;  // The model's optimum, to the tolerance.
};
std::optional<ProvenLowerBound> ProveLowerBound(const MilpModel& model,
                                                const Budget& budget, int64_t unit,
                                                double tolerance,
                                                const std::string& what);

// COIN-OR CBC (solver/cbc/cbc_solver.cc), in this process.
std::unique_ptr<MilpSolver> MakeCbcSolver();

// The solver olla's ILPs use: CBC in a child process (isolated_solver.h).
std::unique_ptr<MilpSolver> MakeDefaultMilpSolver();

}  // namespace olla
