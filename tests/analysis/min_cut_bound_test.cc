#include "olla/analysis/min_cut_bound.h"

#include <algorithm>
#include <climits>

#include <gtest/gtest.h>

#include "olla/analysis/lower_bounds.h"
#include "olla/generators/synthetic.h"

#include "graph_builder.h"
#include "reference.h"

namespace olla {
namespace {

// Live bytes at an op depend only on which ops ran before it, and every set closed
// under dependencies (ancestors in, descendants out) is what some order ran: so the
// cut at each op is exactly the fewest live bytes at that op over every order.
TEST(MinCutBoundTest, EqualsTheBruteForceMinimumAtEveryOp) {
  int stronger = 0;
  for (uint64_t seed = 1; seed <= 120; ++seed) {
    RandomDagOptions options;
    options.ops = 7;
    options.seed = seed;
    const Graph graph = RandomDag(options);
    std::vector<int64_t> fewest(static_cast<size_t>(graph.num_ops()), INT64_MAX);
    testing::ForEachValidOrder(graph, [&](const Order& order) {
      const std::vector<int64_t> live = testing::ReferenceLiveBytes(graph, order);
      for (int32_t s = 0; s < order.size(); ++s) {
        int64_t& best = fewest[order.ops[static_cast<size_t>(s)].index()];
        best = std::min(best, live[static_cast<size_t>(s)]);
      }
    });
    const std::vector<int64_t> forced = ForcedLiveBytes(graph);
    for (int32_t o = 0; o < graph.num_ops(); ++o) {
      const int64_t cut = MinCutLiveBytes(graph, OpId(o));
      ASSERT_EQ(cut, fewest[static_cast<size_t>(o)]) << "seed " << seed << " op " << o;
      ASSERT_GE(cut, forced[static_cast<size_t>(o)]) << "seed " << seed << " op " << o;
      stronger += cut > forced[static_cast<size_t>(o)];
    }
  }
  EXPECT_GT(stronger, 10);  // Strictly stronger than forced-live, and often.
}

// The case forced-live misses: a side chain unrelated to v (x = input, y = f(x),
// out = g(y)) keeps one of its 100-byte buffers live whenever v runs, but none is
// forced by v's ancestors or descendants.
TEST(MinCutBoundTest, SeesTheSideChainForcedLiveMisses) {
  testing::GraphBuilder builder;
  const BufferId a = builder.Buffer(10, "a");
  const BufferId b = builder.Buffer(10, "b");
  const BufferId x = builder.Buffer(100, "x");  // No producer: a graph input.
  const BufferId y = builder.Buffer(100, "y");
  const BufferId out = builder.Output(100, "out");
  builder.Op({a}, {});
  const OpId v = builder.Op({b}, {a});
  builder.Op({y}, {x});
  builder.Op({out}, {y});
  const Graph graph = builder.Build();
  const std::vector<int64_t> forced = ForcedLiveBytes(graph);
  EXPECT_EQ(forced[v.index()], 20);
  EXPECT_EQ(MinCutLiveBytes(graph, v), 120);
}

TEST(MinCutBoundTest, RaisesTheBoundOnlyWhereAnOrderIsAbove) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    RandomDagOptions options;
    options.ops = 7;
    options.seed = seed;
    const Graph graph = RandomDag(options);
    const int64_t optimum = testing::BruteForceOptimalPeak(graph);
    const Order eager = EagerOrder(graph);
    const std::vector<int64_t> by_step = testing::ReferenceLiveBytes(graph, eager);
    std::vector<int64_t> live(by_step.size());
    for (size_t s = 0; s < by_step.size(); ++s) live[eager.ops[s].index()] = by_step[s];
    const int64_t forced = ComputeLowerBounds(graph).best();
    const MinCutResult result = MinCutBound(graph, live, forced, INT64_MAX, Budget());
    EXPECT_TRUE(result.complete);
    EXPECT_GE(result.bound_bytes, forced);
    EXPECT_LE(result.bound_bytes, optimum) << "seed " << seed;
    if (result.bound_bytes > forced) {
      EXPECT_TRUE(result.op.valid());
    }
    // A target reached stops the search: nothing more is computed.
    const MinCutResult stopped = MinCutBound(graph, live, forced, forced, Budget());
    EXPECT_EQ(stopped.ops_computed, 0);
  }
}

}  // namespace
}  // namespace olla
