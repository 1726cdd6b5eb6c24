#include "olla/generators/synthetic.h"

#include <gtest/gtest.h>

namespace olla {
namespace {

TEST(SyntheticTest, TrainingLikeGraphHasForwardBackwardAndUpdates) {
  TrainingLikeOptions options;
  options.layers = 50;
  const Graph graph = TrainingLikeGraph(options);
  EXPECT_EQ(graph.num_ops(), 3 * 50 + 1);
  int forward = 0, backward = 0, optimizer = 0;
  for (const Op& op : graph.ops()) {
    forward += op.phase == Phase::kForward;
    backward += op.phase == Phase::kBackward;
    optimizer += op.phase == Phase::kOptimizer;
  }
  EXPECT_EQ(forward, 51);  // Layers and the loss.
  EXPECT_EQ(backward, 50);
  EXPECT_EQ(optimizer, 50);
  EXPECT_EQ(graph.explicit_edges().size(), 50u);  // One in-place hazard per update.
  EXPECT_GT(graph.persistent_bytes(), 0);
}

TEST(SyntheticTest, SameSeedSameGraphOtherSeedOtherGraph) {
  TrainingLikeOptions options;
  options.layers = 30;
  const Graph a = TrainingLikeGraph(options);
  const Graph b = TrainingLikeGraph(options);
  options.seed = 2;
  const Graph c = TrainingLikeGraph(options);
  auto sizes = [](const Graph& g) {
    std::vector<int64_t> out;
    for (const Buffer& buffer : g.buffers()) out.push_back(buffer.size);
    return out;
  };
  EXPECT_EQ(sizes(a), sizes(b));
  EXPECT_NE(sizes(a), sizes(c));
}

TEST(SyntheticTest, RandomDagsAreValidAndVaried) {
  int64_t total_edges = 0;
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    RandomDagOptions options;
    options.ops = 9;
    options.seed = seed;
    const Graph graph = RandomDag(options);  // Aborts if invalid.
    EXPECT_EQ(graph.num_ops(), 9);
    total_edges += graph.num_edges();
  }
  EXPECT_GT(total_edges, 50);
}

}  // namespace
}  // namespace olla
