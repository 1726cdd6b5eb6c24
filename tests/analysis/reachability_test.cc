#include "olla/analysis/reachability.h"

#include <gtest/gtest.h>

#include "olla/generators/synthetic.h"

#include "reference.h"

namespace olla {
namespace {

Graph RandomGraph(uint64_t seed, int32_t ops) {
  RandomDagOptions options;
  options.ops = ops;
  options.seed = seed;
  options.edge_probability = 0.05;
  return RandomDag(options);
}

// Both the matrix and the search (forced by a matrix limit of 0) agree with
// Floyd-Warshall on every pair.
TEST(ReachabilityTest, MatrixAndSearchMatchReference) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const Graph graph = RandomGraph(seed, 70);
    const auto reference = testing::ReferenceReachability(graph);
    const Reachability matrix(graph);
    const Reachability search(graph, /*max_matrix_ops=*/0);
    ASSERT_TRUE(matrix.has_matrix());
    ASSERT_FALSE(search.has_matrix());
    for (int32_t a = 0; a < graph.num_ops(); ++a) {
      for (int32_t b = 0; b < graph.num_ops(); ++b) {
        const bool expected = reference[static_cast<size_t>(a)][static_cast<size_t>(b)];
        ASSERT_EQ(matrix.Reaches(OpId(a), OpId(b)), expected) << a << "->" << b;
        ASSERT_EQ(search.Reaches(OpId(a), OpId(b)), expected) << a << "->" << b;
      }
    }
  }
}

TEST(ReachabilityTest, BlockSweepMatchesReference) {
  const Graph graph = RandomGraph(7, 300);
  const auto reference = testing::ReferenceReachability(graph);
  ReachBlock block;
  for (int32_t first : {0, 100, 256}) {
    const int32_t count = std::min(TargetMask::kBits, graph.num_ops() - first);
    SweepReachBlock(graph, first, count, block);
    for (int32_t x = 0; x < graph.num_ops(); ++x) {
      for (int32_t i = 0; i < count; ++i) {
        const auto t = static_cast<size_t>(first + i);
        const auto ux = static_cast<size_t>(x);
        ASSERT_EQ(block.reaches_target[ux].Test(i), reference[ux][t]) << x << " " << t;
        ASSERT_EQ(block.reached_from_target[ux].Test(i), reference[t][ux])
            << x << " " << t;
      }
    }
  }
}

}  // namespace
}  // namespace olla
