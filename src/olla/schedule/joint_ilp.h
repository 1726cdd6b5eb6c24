// The joint ILP: order and addresses in one model, as OLLA proposed (Steiner et al.,
// section 4): the lifetime ILP with one op per step (lifetime_ilp.h), plus an integer
// address per buffer and per workspace and, for every pair whose windows meet, two
// binaries "a below b" and "b below a", one of which must hold at any step where both
// are live (their create/preserve variables). The objective is the arena's top, so the
// model trades a higher peak for a layout without holes where that pays.
//
// Sizes are rounded up to the alignment first, as the arena problem does
// (pipeline/arena.h), so every address the model picks is aligned. Size:
// O(ops^2 + pairs x steps) rows; models above max_constraints are not built. For small
// graphs and for tests; the pipeline runs it as a refinement from its own plan.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "olla/core/budget.h"
#include "olla/graph/graph.h"
#include "olla/graph/order.h"
#include "olla/plan/plan.h"
#include "olla/solver/milp_solver.h"

namespace olla {

struct JointIlpOptions {
  int64_t alignment = 1;
  int threads = 1;
  int64_t lower_bound_bytes = 0;  // A proven bound on the arena.
  // A plan to start from, placed for the rounded sizes (pipeline/arena.h) with its
  // workspace: its arena is the model's upper bound (and big-M); without one, the sum
  // of the sizes.
  std::optional<Plan> start;
  int64_t max_constraints = 400'000;
  std::function<std::unique_ptr<MilpSolver>()> solver = MakeDefaultMilpSolver;
};

struct JointIlpResult {
  bool too_large = false;   // Not built: more than max_constraints rows.
  bool solved = false;      // A solution came back (at worst the start).
  bool optimal = false;     // ...proven optimal for the model.
  Plan plan;                // Order, offsets and workspace offsets, when solved.
  int64_t bound_bytes = 0;  // Proven: no plan has a smaller arena.
  int64_t variables = 0;
  int64_t constraints = 0;
  std::string solver_failure;
};

// Budget work units are CBC's branch-and-bound nodes.
JointIlpResult SolveJointIlp(const Graph& graph, const JointIlpOptions& options,
                             const Budget& budget);

}  // namespace olla
