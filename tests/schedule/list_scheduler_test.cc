#include "olla/schedule/list_scheduler.h"

#include <gtest/gtest.h>

#include "olla/analysis/topology.h"
#include "olla/generators/synthetic.h"
#include "olla/schedule/executor.h"
#include "olla/schedule/heuristics.h"

#include "graph_builder.h"
#include "schedule_fixtures.h"

namespace olla {
namespace {

Timings NoRules(const MemoryModel& model) {
  return Timings(model, {.updates_asap = false, .timing_rules = false});
}

TEST(ListSchedulerTest, MemoryPoliciesFindFigure3sBetterOrder) {
  const Graph graph = testing::Figure3Graph();
  const MemoryModel model(graph);
  for (ListPolicy policy : {ListPolicy::kMemoryEffect, ListPolicy::kLeastPeak}) {
    const Order order = ListSchedule(model, NoRules(model), policy);
    EXPECT_EQ(PeakOf(model, order), 47185920) << ListPolicyName(policy);
  }
}

TEST(ListSchedulerTest, DepthFirstFollowsABranchBreadthFirstAlternates) {
  // Two independent chains a0 -> a1 and b0 -> b1.
  testing::GraphBuilder g;
  const BufferId a = g.Buffer(1);
  const BufferId b = g.Buffer(1);
  g.Op({a}, {});
  g.Op({b}, {});
  g.Op({}, {a});
  g.Op({}, {b});
  const Graph graph = g.Build();
  const MemoryModel model(graph);
  EXPECT_EQ(ListSchedule(model, NoRules(model), ListPolicy::kDepthFirst).ops,
            (std::vector<OpId>{OpId(0), OpId(2), OpId(1), OpId(3)}));
  EXPECT_EQ(ListSchedule(model, NoRules(model), ListPolicy::kBreadthFirst).ops,
            (std::vector<OpId>{OpId(0), OpId(1), OpId(2), OpId(3)}));
}

TEST(ListSchedulerTest, EveryPolicyGivesValidDeterministicOrders) {
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    const Graph graph =
        testing::RandomScheduleGraph(5 + static_cast<int32_t>(seed % 40), seed, 0.2);
    const MemoryModel model(graph);
    for (bool updates_asap : {false, true}) {
      const Timings timings(model, {.updates_asap = updates_asap});
      for (ListPolicy policy : kListPolicies) {
        const Order order = ListSchedule(model, timings, policy);
        ASSERT_TRUE(CheckValidOrder(graph, order).ok()) << ListPolicyName(policy);
        ASSERT_EQ(order, ListSchedule(model, timings, policy));
      }
    }
  }
}

TEST(HeuristicsTest, BestOfIsTheSmallestAndEagerIsFirst) {
  TrainingLikeOptions options;
  options.layers = 30;
  const Graph graph = TrainingLikeGraph(options);
  const MemoryModel model(graph);
  const std::vector<ScoredOrder> all = AllHeuristics(model, ScheduleRules{});
  ASSERT_EQ(all.size(), 6u);
  EXPECT_EQ(all[0].method, "eager");
  EXPECT_EQ(all[1].method, "alap");
  int64_t smallest = all[0].peak_bytes;
  for (const ScoredOrder& scored : all) {
    EXPECT_TRUE(CheckValidOrder(graph, scored.order).ok()) << scored.method;
    EXPECT_EQ(scored.peak_bytes, PeakOf(model, scored.order));
    smallest = std::min(smallest, scored.peak_bytes);
  }
  EXPECT_EQ(BestHeuristic(model, ScheduleRules{}).peak_bytes, smallest);
}

}  // namespace
}  // namespace olla
