#include "olla/analysis/lower_bounds.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "olla/analysis/timeline.h"
#include "olla/generators/synthetic.h"

#include "graph_builder.h"
#include "reference.h"

namespace olla {
namespace {

TEST(LowerBoundsTest, Figure3BoundIsTheOptimum) {
  const LowerBounds bounds = ComputeLowerBounds(testing::Figure3Graph());
  EXPECT_EQ(bounds.single_op_bytes, 47185920);  // v4: e4 + e5 + e6.
  EXPECT_EQ(bounds.single_op, OpId(3));
  EXPECT_EQ(bounds.forced_live_bytes, 47185920);
  EXPECT_EQ(bounds.best(), 47185920);
}

TEST(LowerBoundsTest, ForcedLiveSeesBuffersThatSpanAnOp) {
  // x is allocated before b and read after it, so it is live while b runs although b
  // never touches it; graph outputs are live from their allocation on.
  testing::GraphBuilder g;
  const BufferId x = g.Buffer(100);
  const BufferId y = g.Buffer(1);
  const BufferId out = g.Output(7);
  g.Op({x}, {});
  g.Op({y, out}, {x});
  g.Op({}, {y}, /*workspace=*/5);
  g.Op({}, {x});
  g.Edge(OpId(2), OpId(3));
  const Graph graph = g.Build();
  EXPECT_THAT(SingleOpFootprints(graph), ::testing::ElementsAre(100, 108, 6, 100));
  EXPECT_THAT(ForcedLiveBytes(graph), ::testing::ElementsAre(100, 108, 113, 107));
  EXPECT_EQ(ComputeLowerBounds(graph).best(), 113);
}

// On random graphs: each op's bounds hold in every order, at that op's step, and the
// graph's bound never exceeds the brute-force optimum.
TEST(LowerBoundsTest, NeverExceedTheBruteForceOptimum) {
  int tight = 0;
  for (uint64_t seed = 1; seed <= 80; ++seed) {
    RandomDagOptions options;
    options.ops = 7;
    options.seed = seed;
    const Graph graph = RandomDag(options);
    const std::vector<int64_t> forced = ForcedLiveBytes(graph);
    const std::vector<int64_t> footprint = SingleOpFootprints(graph);
    int64_t optimum = INT64_MAX;
    testing::ForEachValidOrder(graph, [&](const Order& order) {
      const std::vector<int64_t> live = testing::ReferenceLiveBytes(graph, order);
      for (int32_t s = 0; s < order.size(); ++s) {
        const size_t op = order.ops[static_cast<size_t>(s)].index();
        ASSERT_LE(footprint[op], forced[op]) << "seed " << seed;
        ASSERT_LE(forced[op], live[static_cast<size_t>(s)])
            << "seed " << seed << " op " << op;
      }
      optimum = std::min(optimum, *std::max_element(live.begin(), live.end()));
    });
    ASSERT_EQ(optimum, testing::BruteForceOptimalPeak(graph));
    const int64_t bound = ComputeLowerBounds(graph).best();
    ASSERT_LE(bound, optimum) << "seed " << seed;
    tight += bound == optimum;
  }
  // The bound is useful, not just valid: it is often exactly the optimum.
  EXPECT_GT(tight, 20);
}

TEST(LowerBoundsTest, BlocksCoverGraphsLargerThanOneBlock) {
  TrainingLikeOptions options;
  options.layers = 300;  // 901 ops: four blocks of 256.
  const Graph graph = TrainingLikeGraph(options);
  const LowerBounds bounds = ComputeLowerBounds(graph);
  const MemoryTimeline eager = ComputeTimeline(
      graph, EagerOrder(graph), ComputeLifetimes(graph, EagerOrder(graph)));
  EXPECT_GT(bounds.forced_live_bytes, bounds.single_op_bytes);
  EXPECT_LE(bounds.best(), eager.peak_bytes);
  // In a training step every activation is forced live at the loss.
  int64_t activations = 0;
  for (const Buffer& buffer : graph.buffers()) {
    if (buffer.kind == BufferKind::kActivation && !buffer.output)
      activations += buffer.size;
  }
  EXPECT_GE(bounds.forced_live_bytes, activations);
}

// Out of time, the ops not reached keep their footprints: each value is still a bound
// at its op (at most the full forced-live value), and nothing is computed past a stop.
TEST(LowerBoundsTest, ABudgetThatRunsOutLeavesFootprints) {
  TrainingLikeOptions options;
  options.layers = 300;
  const Graph graph = TrainingLikeGraph(options);
  const std::vector<int64_t> full = ForcedLiveBytes(graph);
  const Budget stopped;
  stopped.RequestStop();
  const ForcedLive partial = ComputeForcedLive(graph, stopped);
  EXPECT_EQ(partial.ops_computed, 0);
  EXPECT_FALSE(partial.complete());
  EXPECT_EQ(partial.bytes, SingleOpFootprints(graph));
  for (size_t op = 0; op < full.size(); ++op) EXPECT_LE(partial.bytes[op], full[op]);
  const ForcedLive complete = ComputeForcedLive(graph, Budget());
  EXPECT_TRUE(complete.complete());
  EXPECT_EQ(complete.bytes, full);
  const LowerBounds bounds = ComputeLowerBounds(graph, stopped);
  EXPECT_FALSE(bounds.forced_live_complete());
  EXPECT_EQ(bounds.best(), bounds.single_op_bytes);
}

}  // namespace
}  // namespace olla
