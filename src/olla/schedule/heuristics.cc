#include "olla/schedule/heuristics.h"

#include <algorithm>
#include <queue>

#include "olla/schedule/list_scheduler.h"

namespace olla {

ScoredOrder EagerSchedule(const MemoryModel& model, const ScheduleRules& rules) {
  Order order = EagerOrder(model.graph());
  // Without the updates rule every order is allowed, and the eager order is itself.
  // With it, the orders allowed are those that follow all the rules (executor.h).
  if (rules.updates_asap) order = FollowRules(model, Timings(model, rules), order);
  const int64_t peak = PeakOf(model, order);
  return {"eager", std::move(order), peak};
}

Order AsLateAsPossible(const Graph& graph) {
  // Kahn's algorithm from the end: among the ops whose successors are all placed, the
  // highest id goes last; reversed, every op runs as late as its consumers allow.
  std::vector<int32_t> waiting(static_cast<size_t>(graph.num_ops()));
  std::priority_queue<int32_t> ready;
  for (int32_t i = 0; i < graph.num_ops(); ++i) {
    waiting[static_cast<size_t>(i)] =
        static_cast<int32_t>(graph.successors(OpId(i)).size());
    if (waiting[static_cast<size_t>(i)] == 0) ready.push(i);
  }
  Order order;
  while (!ready.empty()) {
    const OpId op(ready.top());
    ready.pop();
    order.ops.push_back(op);
    for (OpId before : graph.predecessors(op)) {
      if (--waiting[before.index()] == 0) ready.push(before.value());
    }
  }
  std::reverse(order.ops.begin(), order.ops.end());
  return order;
}

std::vector<ScoredOrder> AllHeuristics(const MemoryModel& model,
                                       const ScheduleRules& rules, const Budget& budget) {
  std::vector<ScoredOrder> orders = {EagerSchedule(model, rules)};
  if (budget.OutOfTime()) return orders;
  const Timings timings(model, rules);
  Order late = FollowRules(model, timings, AsLateAsPossible(model.graph()));
  const int64_t late_peak = PeakOf(model, late);
  orders.push_back({"alap", std::move(late), late_peak});
  for (ListPolicy policy : kListPolicies) {
    if (budget.OutOfTime()) break;
    Order order = ListSchedule(model, timings, policy);
    const int64_t peak = PeakOf(model, order);
    orders.push_back({ListPolicyName(policy), std::move(order), peak});
  }
  return orders;
}

ScoredOrder BestHeuristic(const MemoryModel& model, const ScheduleRules& rules,
                          const Budget& budget) {
  std::vector<ScoredOrder> orders = AllHeuristics(model, rules, budget);
  size_t best = 0;
  for (size_t i = 1; i < orders.size(); ++i) {
    if (orders[i].peak_bytes < orders[best].peak_bytes) best = i;
  }
  return std::move(orders[best]);
}

}  // namespace olla
