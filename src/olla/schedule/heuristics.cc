#include "olla/schedule/heuristics.h"

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

std::vector<ScoredOrder> AllHeuristics(const MemoryModel& model,
                                       const ScheduleRules& rules) {
  std::vector<ScoredOrder> orders = {EagerSchedule(model, rules)};
  const Timings timings(model, rules);
  for (ListPolicy policy : kListPolicies) {
    Order order = ListSchedule(model, timings, policy);
    const int64_t peak = PeakOf(model, order);
    orders.push_back({ListPolicyName(policy), std::move(order), peak});
  }
  return orders;
}

ScoredOrder BestHeuristic(const MemoryModel& model, const ScheduleRules& rules) {
  std::vector<ScoredOrder> orders = AllHeuristics(model, rules);
  size_t best = 0;
  for (size_t i = 1; i < orders.size(); ++i) {
    if (orders[i].peak_bytes < orders[best].peak_bytes) best = i;
  }
  return std::move(orders[best]);
}

}  // namespace olla
