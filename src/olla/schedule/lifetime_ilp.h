// The OLLA lifetime ILP (Steiner et al., section 4.2), on any MILP solver.
//
// Time is cut into steps. For every op v and step t in its window a binary R[v,t]
// (v runs at t: its outputs are created then, OLLA's C variables); for every buffer e
// and step t a binary P[e,t] (e is preserved: live at t without being created at t).
// Each op runs once; a buffer can be preserved only if it was created or preserved the
// step before (P[e,t] <= P[e,t-1] + R[producer,t-1]); an op's inputs are preserved at
// the step it runs, so producers run strictly earlier, as do the sources of explicit
// precedence edges; created and preserved exclude each other; graph outputs stay
// preserved after creation; graph inputs may be preserved from step 0. The objective is
// z >= the bytes created and preserved at each step (plus workspace), sizes divided by
// their greatest common divisor. Persistent buffers are a constant and left out.
//
// Two horizons:
// - kPaper: OLLA's, about 1.01 x the critical path, several ops per step; windows come
//   from the ASAP/ALAP levels. Ops sharing a step are all counted live together, which
//   over-counts what one op at a time would need; this reproduces the paper.
// - kOneOpPerStep: as many steps as ops, one op each: the memory model exactly, with
//   windows from the numbers of ancestors and descendants.
// The start is the best heuristic order (kOneOpPerStep) or the ASAP levels (kPaper); the
// proven lower bound bounds z. The order is read back from R, ties by eager order, and
// re-measured exactly by the caller.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "olla/core/budget.h"
#include "olla/graph/graph.h"
#include "olla/graph/order.h"
#include "olla/solver/milp_solver.h"

namespace olla {

enum class IlpHorizon { kPaper, kOneOpPerStep };

struct LifetimeIlpOptions {
  IlpHorizon horizon = IlpHorizon::kOneOpPerStep;
  double paper_horizon_factor = 1.01;
  double relative_gap = 0.0;
  int threads = 1;
  int64_t lower_bound_bytes = 0;  // A proven bound on the peak, to bound z.
  std::optional<Order> start;     // A valid order to start from (kOneOpPerStep).
  // Larger models are not built (one op per step grows with the square of the ops).
  int64_t max_variables = 3'000'000;
  std::function<std::unique_ptr<MilpSolver>()> solver = MakeDefaultMilpSolver;
};

struct LifetimeIlpResult {
  bool solved = false;            // The solver returned a solution.
  bool optimal = false;           // ...and proved it optimal for the model.
  Order order;                    // Decoded from R, when solved.
  int64_t model_peak_bytes = 0;   // The model's objective, in bytes.
  int64_t model_bound_bytes = 0;  // The solver's proven bound, in bytes.
  int32_t steps = 0;
  int64_t variables = 0;
  int32_t constraints = 0;
  // More than max_variables, or more than the time left can build and load
  // (FitsInTime): not built, or built and not solved.
  bool too_large = false;
  std::string solver_failure;  // How the solver died, when it did (no solution then).
};

// Within `budget`: its work units are CBC's branch-and-bound nodes.
LifetimeIlpResult SolveLifetimeIlp(const Graph& graph, const LifetimeIlpOptions& options,
                                   const Budget& budget);

}  // namespace olla
