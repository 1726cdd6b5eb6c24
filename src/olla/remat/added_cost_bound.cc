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

namespace {

// A droppable buffer as plans on the order may free it: absent at the steps after
// `after` (its producer's, or its last early reader's) and before `end` (its
// lifetime's), but at `reads`, its late readers' steps (they read it or a copy).
struct FreeSpan {
  OpId producer;
  int64_t size = 0;
  int32_t after = 0;
  int32_t end = 0;
  std::vector<int32_t> reads;  // Ascending, once each.
};

// By producer, then as each op allocates them.
std::vector<FreeSpan> FreeSpans(const Graph& graph, const Order& order,
                                const Lifetimes& lifetimes) {
  std::vector<int32_t> step_of(static_cast<size_t>(graph.num_ops()));
  for (size_t step = 0; step < order.ops.size(); ++step)
    step_of[order.ops[step].index()] = static_cast<int32_t>(step);
  const RecomputableBuffers buffers = FindRecomputableBuffers(graph);
  std::vector<FreeSpan> spans;
  for (int32_t o = 0; o < graph.num_ops(); ++o) {
    for (BufferId b : graph.op(OpId(o)).allocates) {
      if (!buffers.droppable[b.index()]) continue;
      const std::vector<OpId>& late = buffers.late_users[b.index()];
      FreeSpan span{OpId(o),
                    graph.buffer(b).size,
                    step_of[static_cast<size_t>(o)],
                    lifetimes[b].end,
                    {}};
      for (OpId user : graph.users(b)) {
        const int32_t at = step_of[user.index()];
        if (std::find(late.begin(), late.end(), user) != late.end())
          span.reads.push_back(at);
        else
          span.after = std::max(span.after, at);
      }
      std::sort(span.reads.begin(), span.reads.end());
      span.reads.erase(std::unique(span.reads.begin(), span.reads.end()),
                       span.reads.end());
      spans.push_back(std::move(span));
    }
  }
  return spans;
}

// At each step, the live bytes less all the spans free there (a difference array);
// the largest.
OrderFloor FloorOf(const MemoryTimeline& timeline, const std::vector<FreeSpan>& spans) {
  const size_t steps = timeline.live_bytes.size();
  std::vector<int64_t> freed(steps + 1, 0);
  for (const FreeSpan& span : spans) {
    if (span.after + 1 >= span.end) continue;
    freed[static_cast<size_t>(span.after + 1)] += span.size;
    freed[static_cast<size_t>(span.end)] -= span.size;
    for (int32_t read : span.reads) {
      if (read <= span.after || read >= span.end) continue;
      freed[static_cast<size_t>(read)] -= span.size;
      freed[static_cast<size_t>(read + 1)] += span.size;
    }
  }
  OrderFloor floor;
  int64_t free_here = 0;
  for (size_t step = 0; step < steps; ++step) {
    free_here += freed[step];
    const int64_t least = timeline.live_bytes[step] - free_here;
    if (least <= floor.bytes) continue;
    floor.bytes = least;
    floor.step = static_cast<int32_t>(step);
  }
  return floor;
}

}  // namespace

OrderFloor ComputeOrderFloor(const Graph& graph, const Order& order) {
  const Lifetimes lifetimes = ComputeLifetimes(graph, order);
  return FloorOf(ComputeTimeline(graph, order, lifetimes),
                 FreeSpans(graph, order, lifetimes));
}

AddedCostBound BoundAddedCost(const Graph& graph, const Order& order,
                              int64_t target_bytes, const Budget& budget) {
  AddedCostBound bound;
  const Lifetimes lifetimes = ComputeLifetimes(graph, order);
  const MemoryTimeline timeline = ComputeTimeline(graph, order, lifetimes);
  const std::vector<FreeSpan> spans = FreeSpans(graph, order, lifetimes);
  bound.floor = FloorOf(timeline, spans);
  if (timeline.peak_bytes <= target_bytes) {
    bound.proven_optimal = true;
    return bound;
  }
  if (bound.floor.bytes > target_bytes) {
    bound.reachable = false;
    return bound;
  }
  // rows[step]: (producer's variable, bytes it frees there), for the steps above target.
  const auto steps = static_cast<int32_t>(order.ops.size());
  std::vector<std::vector<std::pair<int32_t, int64_t>>> rows(static_cast<size_t>(steps));
  MilpModel model;
  std::vector<OpId> producer_of;  // By variable.
  int64_t dearest = 1;
  for (const FreeSpan& span : spans) {
    for (int32_t step = span.after + 1; step < span.end; ++step) {
      if (timeline.live_bytes[static_cast<size_t>(step)] <= target_bytes ||
          std::binary_search(span.reads.begin(), span.reads.end(), step))
        continue;
      if (producer_of.empty() || producer_of.back() != span.producer) {
        producer_of.push_back(span.producer);
        dearest = std::max(dearest, OpCost(graph, span.producer));
      }
      const auto variable = static_cast<int32_t>(producer_of.size()) - 1;
      auto& row = rows[static_cast<size_t>(step)];
      if (!row.empty() && row.back().first == variable)
        row.back().second += span.size;
      else
        row.push_back({variable, span.size});
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
    // The floor at most the target: the row's bytes cover its excess.
    std::vector<MilpTerm> terms;
    for (const auto& [variable, bytes] : rows[static_cast<size_t>(step)]) {
      terms.push_back({variable, static_cast<double>(std::min(bytes, excess)) /
                                     static_cast<double>(excess)});
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
