#include "olla/analysis/case_split_bound.h"

#include <algorithm>
#include <climits>

#include <gtest/gtest.h>

#include "olla/analysis/min_cut_bound.h"
#include "olla/generators/synthetic.h"

#include "reference.h"

namespace olla {
namespace {

// Under an assumed edge the cut at an op is the fewest bytes live there over the orders
// that run the edge's ops in its order: brute force over every order.
TEST(CaseSplitBoundTest, CutUnderAnAssumedEdgeEqualsTheBruteForceMinimum) {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    RandomDagOptions options;
    options.ops = 7;
    options.seed = seed;
    const Graph graph = RandomDag(options);
    for (int32_t w = 0; w < graph.num_ops(); ++w) {
      for (const OpId u : UnrelatedOps(graph, OpId(w))) {
        const PrecedenceEdge edge{u, OpId(w)};
        int64_t fewest = INT64_MAX;
        testing::ForEachValidOrder(graph, [&](const Order& order) {
          const auto at = [&](OpId op) {
            return std::find(order.ops.begin(), order.ops.end(), op) - order.ops.begin();
          };
          if (at(u) > at(OpId(w))) return;
          fewest = std::min(fewest, testing::ReferenceLiveBytes(
                                        graph, order)[static_cast<size_t>(at(OpId(w)))]);
        });
        ASSERT_EQ(MinCutLiveBytes(graph, OpId(w), {&edge, 1}), fewest)
            << "seed " << seed << " op " << w << " after op " << u.index();
      }
    }
  }
}

TEST(CaseSplitBoundTest, NeverAboveTheOptimumAndSometimesAboveEveryCut) {
  int stronger = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    RandomDagOptions options;
    options.ops = 8;
    options.seed = seed;
    const Graph graph = RandomDag(options);
    const int64_t optimum = testing::BruteForceOptimalPeak(graph);
    int64_t best_cut = 0;
    for (int32_t o = 0; o < graph.num_ops(); ++o)
      best_cut = std::max(best_cut, MinCutLiveBytes(graph, OpId(o)));
    // Dives at the eager order's peak ops, aiming at its peak (often above the optimum).
    const Order eager = EagerOrder(graph);
    const std::vector<int64_t> live = testing::ReferenceLiveBytes(graph, eager);
    const int64_t peak = *std::max_element(live.begin(), live.end());
    const CaseSplitResult split = CaseSplitBound(graph, eager, best_cut, peak, Budget());
    ASSERT_GE(split.bound_bytes, best_cut);
    ASSERT_LE(split.bound_bytes, optimum) << "seed " << seed;
    if (split.bound_bytes > best_cut) {
      ++stronger;
      EXPECT_GT(split.splits, 0);
    }
  }
  EXPECT_GT(stronger, 20);  // 39 of the 150.
}

TEST(CaseSplitBoundTest, StopsOnItsWorkLimit) {
  RandomDagOptions options;
  options.ops = 40;
  options.seed = 7;
  const Graph graph = RandomDag(options);
  const Order eager = EagerOrder(graph);
  const std::vector<int64_t> live = testing::ReferenceLiveBytes(graph, eager);
  const int64_t peak = *std::max_element(live.begin(), live.end());
  const CaseSplitResult none = CaseSplitBound(graph, eager, 0, peak, Budget::OfWork(0));
  EXPECT_EQ(none.cuts, 0);
  EXPECT_EQ(none.bound_bytes, 0);
  const CaseSplitResult some = CaseSplitBound(graph, eager, 0, peak, Budget::OfWork(25));
  EXPECT_LE(some.cuts, 25 + 4);
  EXPECT_GT(some.cuts, 0);
}

}  // namespace
}  // namespace olla
