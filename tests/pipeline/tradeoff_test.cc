#include "olla/pipeline/tradeoff.h"

#include <gtest/gtest.h>

#include "training_chain.h"

namespace olla {
namespace {

OptimizeRequest ChainRequest() {
  OptimizeRequest request;
  request.options.alignment = 1;
  request.work_limit = 4'000'000;
  return request;
}

// On a chain whose activations are all live at the loss, the curve runs from the arena
// without recomputation down towards the recompute floor; every point's plan fits its
// budget, and a tighter budget never costs less compute.
TEST(TradeoffTest, RunsFromNoRecomputationDownAndIsMonotone) {
  const Graph graph = testing::MakeTrainingChain(12, 1000).builder.Build();
  const OptimizeRequest request = ChainRequest();
  const Tradeoff curve =
      *ComputeTradeoff(graph, request, 6, Budget::OfWork(*request.work_limit));
  ASSERT_GE(curve.points.size(), 3u);
  ASSERT_TRUE(curve.points.front().plan.has_value());
  const OptimizeResult& widest = curve.searches[*curve.points.front().plan];
  EXPECT_FALSE(widest.recompute.has_value());
  EXPECT_EQ(curve.points.front().budget_bytes, curve.searches[0].arena_bytes());
  EXPECT_EQ(curve.floor.every_plan.bytes, 4000);
  EXPECT_EQ(curve.floor.searched.bytes, 4000);
  double previous_added = -1;
  int64_t previous_budget = INT64_MAX;
  for (const TradeoffPoint& point : curve.points) {
    EXPECT_LT(point.budget_bytes, previous_budget);
    previous_budget = point.budget_bytes;
    ASSERT_TRUE(point.plan.has_value()) << point.budget_bytes;
    const OptimizeResult& result = curve.searches[*point.plan];
    EXPECT_LE(result.arena_bytes(), point.budget_bytes);
    EXPECT_TRUE(result.check.valid);
    const double added = result.recompute ? result.recompute->added_fraction() : 0.0;
    EXPECT_GE(added, previous_added);
    previous_added = added;
  }
  EXPECT_GT(previous_added, 0.0);  // The tightest end recomputes.
  EXPECT_GE(curve.points.back().budget_bytes, curve.floor.searched.bytes);
}

// The dominance rule, planted: a looser budget whose own search recomputed more than
// a tighter budget's plan takes the tighter plan, which fits it too.
TEST(TradeoffTest, ALooserBudgetTakesACheaperPlanFoundAtATighterOne) {
  auto result = [](int64_t arena, int64_t added) {
    OptimizeResult r;
    r.plan = Plan();
    r.plan->arena_bytes = arena;
    r.recompute = RecomputeReport();
    r.recompute->added_cost = added;
    return r;
  };
  const std::vector<OptimizeResult> searches = {result(5000, 0), result(4500, 30),
                                                result(4000, 10), result(3000, 50)};
  EXPECT_EQ(CheapestPlanFitting(searches, 5000), 0u);
  EXPECT_EQ(CheapestPlanFitting(searches, 4999), 2u);  // Not 1: 4000 bytes cost less.
  EXPECT_EQ(CheapestPlanFitting(searches, 3999), 3u);
  EXPECT_EQ(CheapestPlanFitting(searches, 2999), std::nullopt);
}

TEST(TradeoffTest, RefusesACountOfPointsOutsideItsRange) {
  const Graph graph = testing::MakeTrainingChain(4, 1000).builder.Build();
  const StatusOr<Tradeoff> curve = ComputeTradeoff(graph, ChainRequest(), 1, Budget());
  ASSERT_FALSE(curve.ok());
  EXPECT_EQ(curve.status().message(), "points: must be an integer from 2 to 100, got 1");
}

}  // namespace
}  // namespace olla
