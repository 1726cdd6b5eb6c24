#include "olla/schedule/memory_state.h"

#include <gtest/gtest.h>

#include "olla/analysis/lifetimes.h"
#include "olla/analysis/timeline.h"

#include "graph_builder.h"
#include "reference.h"
#include "schedule_fixtures.h"

namespace olla {
namespace {

TEST(MemoryStateTest, Figure3EagerAndBestOrders) {
  const Graph graph = testing::Figure3Graph();
  const MemoryModel model(graph);
  EXPECT_EQ(PeakOf(model, EagerOrder(graph)), 62914560);
  EXPECT_EQ(PeakOf(model, Order{{OpId(0), OpId(2), OpId(1), OpId(3)}}), 47185920);
}

TEST(MemoryStateTest, RunReportsBytesDuringAndFreesAtLastHolder) {
  testing::GraphBuilder g;
  const BufferId input = g.Buffer(7);
  const BufferId a = g.Buffer(10);
  const BufferId unused = g.Buffer(100);
  const BufferId out = g.Output(1);
  g.Op({a, unused}, {input}, /*workspace=*/3);
  g.Op({out}, {a});
  const Graph graph = g.Build();
  const MemoryModel model(graph);
  MemoryState state(model);
  EXPECT_EQ(state.live_bytes(), 7);
  EXPECT_EQ(state.BytesFreedBy(OpId(0)), 7 + 100);  // The input, its unused output.
  EXPECT_EQ(state.Run(OpId(0)), 7 + 110 + 3);
  EXPECT_EQ(state.live_bytes(), 10);
  EXPECT_EQ(state.BytesFreedBy(OpId(1)), 10);
  EXPECT_EQ(state.Run(OpId(1)), 11);
  EXPECT_EQ(state.live_bytes(), 1);  // The output stays.
  EXPECT_EQ(state.peak_bytes(), 120);
}

TEST(MemoryStateTest, PeakMatchesTheTimelineOnRandomOrders) {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const Graph graph =
        testing::RandomScheduleGraph(3 + static_cast<int32_t>(seed % 20), seed);
    const Order order = testing::RandomValidOrder(graph, seed);
    const MemoryModel model(graph);
    const MemoryTimeline timeline =
        ComputeTimeline(graph, order, ComputeLifetimes(graph, order));
    ASSERT_EQ(PeakOf(model, order), timeline.peak_bytes) << "seed " << seed;
    MemoryState state(model);
    for (size_t s = 0; s < order.ops.size(); ++s)
      ASSERT_EQ(state.Run(order.ops[s]), timeline.live_bytes[s]) << "seed " << seed;
  }
}

}  // namespace
}  // namespace olla
