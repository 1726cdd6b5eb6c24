#include "olla/remat/added_cost_bound.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "olla/analysis/lifetimes.h"
#include "olla/analysis/timeline.h"
#include "olla/remat/cost.h"
#include "olla/remat/recomputable.h"
#include "olla/solver/milp_solver.h"

namespace olla {

AddedCostBound BoundAddedCost(const Graph& graph, const Order& order,
                              int64_t target_bytes, const Budget& budget) {
  AddedCostBound bound;
  const Lifetimes lifetimes = ComputeLifetimes(graph, order);
  const MemoryTimeline timeline = ComputeTimeline(graph, order, lifetimes);
  if (timeline.peak_bytes <= target_bytes) {
    bound.proven_optimal = true;
    return bound;
  }
  std::vector<int32_t> step_of(static_cast<size_t>(graph.num_ops()));
  for (size_t step = 0; step < order.ops.size(); ++step)
    step_of[order.ops[step].index()] = static_cast<int32_t>(step);
  // rows[step]: (producer's variable, bytes it frees there), for the steps above target.
  const auto steps = static_cast<int32_t>(order.ops.size());
  std::vector<std::vector<std::pair<int32_t, int64_t>>> rows(static_cast<size_t>(steps));
  const RecomputableBuffers buffers = FindRecomputableBuffers(graph);
  MilpModel model;
  std::vector<OpId> producer_of;  // By variable.
  int64_t dearest = 1;
  for (int32_t o = 0; o < graph.num_ops(); ++o) {
    int32_t variable = -1;
    for (BufferId b : graph.op(OpId(o)).allocates) {
      if (!buffers.droppable[b.index()]) continue;
      // Free from its last early use to its last use, but at the steps of its late
      // readers (recomputable.h), which read it or a copy.
      const std::vector<OpId>& late = buffers.late_users[b.index()];
      int32_t after = step_of[static_cast<size_t>(o)];
      std::vector<int32_t> reads;
      for (OpId user : graph.users(b)) {
        const int32_t at = step_of[user.index()];
        if (std::find(late.begin(), late.end(), user) != late.end())
          reads.push_back(at);
        else
          after = std::max(after, at);
      }
      std::sort(reads.begin(), reads.end());
      for (int32_t step = after + 1; step < lifetimes[b].end; ++step) {
        if (timeline.live_bytes[static_cast<size_t>(step)] <= target_bytes ||
            std::binary_search(reads.begin(), reads.end(), step))
          continue;
        if (variable < 0) {
          variable = static_cast<int32_t>(producer_of.size());
          producer_of.push_back(OpId(o));
          dearest = std::max(dearest, OpCost(graph, OpId(o)));
        }
        auto& row = rows[static_cast<size_t>(step)];
        if (!row.empty() && row.back().first == variable)
          row.back().second += graph.buffer(b).size;
        else
          row.push_back({variable, graph.buffer(b).size});
      }
    }
  }
  // Costs over the dearest, so that the objective's coefficients are at most 1.
  for (OpId producer : producer_of) {
    model.AddBinary(
        "x" + std::to_string(producer.value()),
        static_cast<double>(OpCost(graph, producer)) / static_cast<double>(dearest));
  }
  int64_t entries = model.num_variables();
  for (int32_t step = 0; step < steps; ++step) {
    const int64_t excess = timeline.live_bytes[static_cast<size_t>(step)] - target_bytes;
    if (excess <= 0) continue;
    int64_t freeable = 0;
    std::vector<MilpTerm> terms;
    for (const auto& [variable, bytes] : rows[static_cast<size_t>(step)]) {
      freeable += bytes;
      terms.push_back({variable, static_cast<double>(std::min(bytes, excess)) /
                                     static_cast<double>(excess)});
    }
    if (freeable < excess) {
      bound.reachable = false;
      bound.unreachable_step = step;
      return bound;
    }
    entries += static_cast<int64_t>(terms.size());
    model.AddConstraint("s" + std::to_string(step), std::move(terms), 1.0, kInfinity);
  }
  if (budget.Exhausted() || !FitsInTime(entries, budget)) return bound;
  MilpOptions options;
  LimitByBudget(budget, options);
  StatusOr<MilpResult> solved = MakeDefaultMilpSolver()->Solve(model, options);
  OLLA_CHECK(solved.ok(),
             "the added-cost bound's ILP is malformed: " + solved.status().message());
  budget.Spend(solved->nodes);
  if (solved->has_bound()) {
    // Down by the solver's tolerance: a bound, never above the true optimum.
    const double units =
        std::max(0.0, solved->best_bound - 1e-6) * static_cast<double>(dearest);
    bound.cost = static_cast<int64_t>(std::floor(units * (1.0 - 1e-9)));
    bound.proven_optimal = solved->conclusion == MilpConclusion::kOptimal;
  }
  return bound;
}

}  // namespace olla
