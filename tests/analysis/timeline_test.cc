#include "olla/analysis/timeline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "olla/generators/synthetic.h"

#include "graph_builder.h"
#include "reference.h"

namespace olla {
namespace {

using testing::kMiB;

MemoryTimeline TimelineOf(const Graph& graph, const Order& order) {
  return ComputeTimeline(graph, order, ComputeLifetimes(graph, order));
}

TEST(TimelineTest, Figure3EagerPeaksAt60MiB) {
  const Graph graph = testing::Figure3Graph();
  const MemoryTimeline timeline = TimelineOf(graph, EagerOrder(graph));
  EXPECT_THAT(timeline.live_bytes,
              ::testing::ElementsAre(40 * kMiB, 60 * kMiB, 55 * kMiB, 45 * kMiB));
  EXPECT_EQ(timeline.peak_bytes, 62914560);
  EXPECT_EQ(timeline.peak_step, 1);
  EXPECT_EQ(timeline.peak_op, OpId(1));  // v3.
}

TEST(TimelineTest, Figure3BestOrderPeaksAt45MiB) {
  const Graph graph = testing::Figure3Graph();
  const MemoryTimeline timeline =
      TimelineOf(graph, Order{{OpId(0), OpId(2), OpId(1), OpId(3)}});
  EXPECT_EQ(timeline.peak_bytes, 47185920);
  EXPECT_EQ(timeline.peak_step, 2);  // The first step at the peak.
}

TEST(TimelineTest, WorkspaceIsLiveOnlyWhileItsOpRuns) {
  testing::GraphBuilder b;
  const BufferId x = b.Buffer(10);
  b.Op({x}, {}, 100);
  b.Op({}, {x});
  const Graph graph = b.Build();
  EXPECT_THAT(TimelineOf(graph, EagerOrder(graph)).live_bytes,
              ::testing::ElementsAre(110, 10));
}

TEST(TimelineTest, PersistentBuffersAreNotCounted) {
  testing::GraphBuilder b;
  const BufferId w = b.Persistent(1000);
  const BufferId x = b.Buffer(10);
  b.Op({x}, {w});
  const Graph graph = b.Build();
  EXPECT_EQ(TimelineOf(graph, EagerOrder(graph)).peak_bytes, 10);
}

// Every valid order of many small random graphs: the timeline equals the definition.
TEST(TimelineTest, MatchesTheDefinitionOnEveryOrderOfRandomGraphs) {
  int orders = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    RandomDagOptions options;
    options.ops = 6;
    options.seed = seed;
    const Graph graph = RandomDag(options);
    testing::ForEachValidOrder(graph, [&](const Order& order) {
      ++orders;
      const MemoryTimeline timeline = TimelineOf(graph, order);
      ASSERT_EQ(timeline.live_bytes, testing::ReferenceLiveBytes(graph, order))
          << "seed " << seed;
      EXPECT_EQ(timeline.peak_bytes, *std::max_element(timeline.live_bytes.begin(),
                                                       timeline.live_bytes.end()));
    });
  }
  EXPECT_GT(orders, 1000);
}

}  // namespace
}  // namespace olla
