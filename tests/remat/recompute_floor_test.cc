#include "olla/remat/recompute_floor.h"

#include <gtest/gtest.h>

#include "olla/analysis/lifetimes.h"
#include "olla/analysis/lower_bounds.h"
#include "olla/analysis/timeline.h"
#include "olla/graph/order.h"
#include "olla/plan/expand.h"
#include "olla/remat/remat_search.h"

#include "training_chain.h"

namespace olla {
namespace {

// Every activation of the chain may be dropped; the input batch has no producer, so
// it is live from the start to the first layer's backward op. A backward op reads the
// gradient after it and its activation and writes a gradient: 3 units, and the input
// beside them: the floor is 4 units at every backward op but the first layer's.
TEST(RecomputeFloorTest, IsTheFootprintPlusWhatNoRecomputationFrees) {
  const testing::TrainingChain chain = testing::MakeTrainingChain(8, 1000);
  const Graph graph = chain.builder.Build();
  const RecomputeFloor floors = ComputeRecomputeFloor(graph);
  const FloorAt& floor = floors.every_plan;
  EXPECT_EQ(floor.bytes, 4000);
  EXPECT_EQ(floor.footprint_bytes, 3000);
  EXPECT_EQ(floor.kept_bytes, 1000);
  EXPECT_EQ(floor.op, chain.backward.back());  // The lowest id attaining it.
  EXPECT_TRUE(floors.complete);
  // Each gradient is read by the next backward op only: nothing more is kept there.
  EXPECT_EQ(floors.searched.bytes, 4000);
  const std::vector<bool> kept = BuffersNoRecomputationFrees(graph);
  EXPECT_TRUE(kept[chain.activations[0].index()]);
  EXPECT_FALSE(kept[chain.activations[1].index()]);
}

// Random layers cannot run twice: nothing can be dropped, and the floor is the bound of
// every order.
TEST(RecomputeFloorTest, WithNothingToRecomputeIsTheForcedLiveBound) {
  testing::TrainingChain chain = testing::MakeTrainingChain(6, 1000);
  for (OpId op : chain.forward)
    chain.builder.ops()[op.index()].type = "aten::native_dropout";
  const Graph graph = chain.builder.Build();
  EXPECT_EQ(ComputeRecomputeFloor(graph).every_plan.bytes,
            ComputeLowerBounds(graph).forced_live_bytes);
}

// The peak of the plan the search finds for `target` on the eager order, measured on
// the expanded graph.
int64_t PeakOfTheSearchFor(const Graph& graph, int64_t target) {
  RematOptions options;
  options.target_bytes = target;
  options.stall_rounds = 200;  // Restarts each target: enough to reach below it.
  const RematResult result =
      Rematerialize(graph, EagerOrder(graph), options, Budget::OfWork(20000));
  const Graph expanded = ExpandGraph(graph, result.recompute).value().graph;
  return ComputeTimeline(expanded, result.order, ComputeLifetimes(expanded, result.order))
      .peak_bytes;
}

// From 9,000 bytes down to 1,000 below `floor`, every 500: the search never goes
// below the floor and reaches every target at or above it.
void ExpectEveryTargetReachedDownTo(const Graph& graph, int64_t floor) {
  for (int64_t target = 9000; target >= floor - 1000; target -= 500) {
    const int64_t peak = PeakOfTheSearchFor(graph, target);
    EXPECT_GE(peak, floor) << "target " << target;
    if (target >= floor) {
      EXPECT_LE(peak, target) << "target " << target;
    }
  }
}

// The floor holds for every plan the search finds, at every target down to below it.
TEST(RecomputeFloorTest, NoPlanTheSearchFindsPeaksBelowIt) {
  const Graph graph = testing::MakeTrainingChain(10, 1000).builder.Build();
  const RecomputeFloor floor = ComputeRecomputeFloor(graph);
  for (int64_t target = 11000; target >= floor.searched.bytes - 1000; target -= 500) {
    EXPECT_GE(PeakOfTheSearchFor(graph, target), floor.searched.bytes)
        << "target " << target;
  }
}

// A gradient read again at the end of the backward pass (a residual connection) is
// freed between its two readers only by running the loss's backward op again, for
// the second: the search does (recomputable.h), so its floor is every plan's, and it
// reaches every target down to it. Were backward ops never run again, the gradient's
// 1,000 bytes would join layer 2's backward op's footprint and the input (5,000).
TEST(RecomputeFloorTest, TheSearchRunsABackwardOpAgainDownToTheFloor) {
  const Graph graph =
      testing::MakeTrainingChainReadingTheLossGradientLast(4, 1000).builder.Build();
  const RecomputeFloor floor = ComputeRecomputeFloor(graph);
  EXPECT_EQ(floor.every_plan.bytes, 4000);
  EXPECT_EQ(floor.searched.bytes, 4000);
  ExpectEveryTargetReachedDownTo(graph, floor.searched.bytes);
}

// Returned by the step, the same gradient exists once in every plan the search makes
// (it never makes an output again): at layer 2's backward op its 1,000 bytes join the
// footprint and the input. A plan that made it again at the end could free it, so the
// floor of every plan stays 4,000; no plan the search finds goes below 5,000.
TEST(RecomputeFloorTest, TheSearchedFloorKeepsTheStepsOutputs) {
  const testing::TrainingChain chain =
      testing::MakeTrainingChainReadingTheLossGradientLast(4, 1000, /*returned=*/true);
  const Graph graph = chain.builder.Build();
  const RecomputeFloor floor = ComputeRecomputeFloor(graph);
  EXPECT_EQ(floor.every_plan.bytes, 4000);
  EXPECT_EQ(floor.searched.bytes, 5000);
  EXPECT_EQ(floor.searched.op, chain.backward[2]);  // The lowest id attaining it.
  EXPECT_EQ(floor.searched.footprint_bytes, 3000);
  EXPECT_EQ(floor.searched.kept_bytes, 2000);
  ExpectEveryTargetReachedDownTo(graph, floor.searched.bytes);
}

// Out of time, an op keeps only its own footprint: weaker, still a bound, and said so.
TEST(RecomputeFloorTest, AnExhaustedBudgetGivesAWeakerBound) {
  const Graph graph = testing::MakeTrainingChain(8, 1000).builder.Build();
  // wall clock: a deadline already passed, so that no block is computed.
  const RecomputeFloor floor = ComputeRecomputeFloor(graph, Budget::Of(0));
  EXPECT_FALSE(floor.complete);
  EXPECT_EQ(floor.every_plan.bytes, 3000);
  EXPECT_EQ(floor.searched.bytes, 3000);
}

}  // namespace
}  // namespace olla
