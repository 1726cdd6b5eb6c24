#include "olla/schedule/executor.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "olla/analysis/topology.h"
#include "olla/io/graph_json.h"
#include "olla/schedule/list_scheduler.h"

#include "graph_builder.h"
#include "schedule_fixtures.h"

namespace olla {
namespace {

TEST(ExecutorTest, ClassifiesOpsAndRunsThemByTheRules) {
  testing::GraphBuilder g;
  const BufferId a = g.Buffer(10);
  const BufferId b = g.Buffer(20);
  const BufferId weight = g.Persistent(4);
  const BufferId scratch = g.Buffer(2);
  const BufferId c = g.Buffer(3);
  g.Op({a}, {});                 // 0: reads nothing, but op 2 runs as soon as ready
  g.Op({b}, {});                 // 1: likewise, for the update
  g.Op({}, {a});                 // 2: allocates nothing: as soon as ready
  g.Op({scratch}, {b, weight});  // 3: the update of weight, with a temporary
  g.Op({}, {weight}, 5);         // 4: allocates nothing but needs workspace: free
  g.Op({c}, {a});                // 5: may free a: free
  g.ops()[3].phase = Phase::kOptimizer;
  g.Edge(OpId(4), OpId(5));
  const Graph graph = g.Build();
  const MemoryModel model(graph);
  const Timings timings(model, ScheduleRules{});
  const std::vector<Timing> expected = {Timing::kFree, Timing::kFree, Timing::kAsap,
                                        Timing::kAsap, Timing::kFree, Timing::kFree};
  for (int32_t i = 0; i < graph.num_ops(); ++i)
    EXPECT_EQ(timings.of(OpId(i)), expected[i]) << i;
  const Timings free_updates(model, {.updates_asap = false});
  EXPECT_EQ(free_updates.of(OpId(3)), Timing::kFree);
  const Timings no_rules(model, {.updates_asap = false, .timing_rules = false});
  for (int32_t i = 0; i < graph.num_ops(); ++i) EXPECT_TRUE(no_rules.free(OpId(i)));

  Executor executor(model, timings);
  EXPECT_TRUE(executor.order().ops.empty());
  EXPECT_EQ(executor.TakeNewlyReady(), (std::vector<OpId>{OpId(0), OpId(1), OpId(4)}));
  executor.Run(OpId(1));  // The update becomes ready and runs.
  EXPECT_EQ(executor.order().ops, (std::vector<OpId>{OpId(1), OpId(3)}));
  EXPECT_EQ(executor.memory().live_bytes(), 0);  // b and the scratch are freed.
  executor.Run(OpId(0));
  EXPECT_EQ(executor.memory().live_bytes(), 10);  // a, for op 5.
  executor.Run(OpId(4));
  EXPECT_EQ(executor.TakeNewlyReady(), (std::vector<OpId>{OpId(5)}));
  executor.Run(OpId(5));
  EXPECT_TRUE(executor.finished());
  EXPECT_EQ(executor.order().ops,
            (std::vector<OpId>{OpId(1), OpId(3), OpId(0), OpId(2), OpId(4), OpId(5)}));
}

TEST(ExecutorTest, DeferredOpsRunRightBeforeTheFirstOpThatNeedsThem) {
  // x is read by op 1 and by op 3, a descendant of op 1: op 1 can free nothing.
  testing::GraphBuilder g;
  const BufferId input = g.Buffer(2);
  const BufferId other_input = g.Buffer(2);
  const BufferId x = g.Buffer(10);
  const BufferId y = g.Buffer(5);
  const BufferId z = g.Buffer(1);
  const BufferId w = g.Buffer(1);
  g.Op({x}, {input});        // 0: frees the input
  g.Op({y}, {x});            // 1: deferred
  g.Op({z}, {other_input});  // 2: frees the other input
  g.Op({w}, {y, x, z});      // 3
  const Graph graph = g.Build();
  const MemoryModel model(graph);
  const Timings timings(model, ScheduleRules{});
  EXPECT_EQ(timings.of(OpId(1)), Timing::kDeferred);
  EXPECT_EQ(timings.pulls(OpId(3)), (std::vector<OpId>{OpId(1)}));
  EXPECT_EQ(timings.waits_for(OpId(3)), (std::vector<OpId>{OpId(0), OpId(2)}));
  const Order order = FollowRules(model, timings, EagerOrder(graph));
  EXPECT_EQ(order.ops, (std::vector<OpId>{OpId(0), OpId(2), OpId(1), OpId(3)}));
  EXPECT_LT(PeakOf(model, order), PeakOf(model, EagerOrder(graph)) + 1);
}

TEST(ExecutorTest, UndoRestoresTheState) {
  const Graph graph = testing::RandomScheduleGraph(12, 5);
  const MemoryModel model(graph);
  const Timings timings(model, ScheduleRules{});
  Executor executor(model, timings);
  executor.set_track_ready(false);
  const Executor before = executor;
  const Order order = FollowRules(model, timings, testing::RandomValidOrder(graph, 5));
  for (OpId op : order.ops) {
    if (timings.free(op) && !executor.done(op)) executor.Run(op);
  }
  EXPECT_TRUE(executor.finished());
  executor.UndoTo(before.order().size());
  EXPECT_EQ(executor.memory().live_bytes(), before.memory().live_bytes());
  for (int32_t i = 0; i < graph.num_ops(); ++i) {
    EXPECT_EQ(executor.done(OpId(i)), before.done(OpId(i)));
    EXPECT_EQ(executor.waiting(OpId(i)), before.waiting(OpId(i)));
  }
  for (OpId op : order.ops) {
    if (timings.free(op) && !executor.done(op)) executor.Run(op);
  }
  EXPECT_EQ(executor.order(), order);
}

TEST(ExecutorTest, FollowingTheTimingRulesNeverRaisesThePeak) {
  // The lemmas every exact method relies on, checked on random orders.
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    const Graph graph =
        testing::RandomScheduleGraph(3 + static_cast<int32_t>(seed % 25), seed);
    const MemoryModel model(graph);
    const Timings timings(model, {.updates_asap = false});
    const Order order = testing::RandomValidOrder(graph, seed);
    const Order ruled = FollowRules(model, timings, order);
    ASSERT_TRUE(CheckValidOrder(graph, ruled).ok()) << "seed " << seed;
    ASSERT_LE(PeakOf(model, ruled), PeakOf(model, order)) << "seed " << seed;
  }
}

}  // namespace
}  // namespace olla

namespace olla {
namespace {

TEST(ExecutorTest, FollowingTheTimingRulesNeverRaisesThePeakOnTheZoo) {
  // The same lemmas on the captured training steps, from the list schedulers' orders
  // (without any rule) and random orders.
  int32_t graphs = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(OLLA_SOURCE_DIR "/models")) {
    const std::string path = entry.path().string();
    if (path.find(".train.") == std::string::npos) continue;
    StatusOr<Graph> graph = LoadGraph(path);
    ASSERT_TRUE(graph.ok()) << graph.status().message();
    ++graphs;
    const MemoryModel model(*graph);
    const Timings no_rules(model, {.updates_asap = false, .timing_rules = false});
    const Timings timings(model, {.updates_asap = false});
    std::vector<Order> orders = {EagerOrder(*graph), testing::RandomValidOrder(*graph, 1),
                                 testing::RandomValidOrder(*graph, 2)};
    for (ListPolicy policy : kListPolicies)
      orders.push_back(ListSchedule(model, no_rules, policy));
    for (const Order& order : orders) {
      const Order ruled = FollowRules(model, timings, order);
      ASSERT_TRUE(CheckValidOrder(*graph, ruled).ok()) << path;
      ASSERT_LE(PeakOf(model, ruled), PeakOf(model, order)) << path;
    }
  }
  EXPECT_GE(graphs, 38);
}

}  // namespace
}  // namespace olla
