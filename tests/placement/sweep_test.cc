#include "olla/placement/sweep.h"

#include <gtest/gtest.h>

#include "olla/placement/greedy.h"
#include "olla/simulation/placement_checker.h"

#include "placement_fixtures.h"

namespace olla {
namespace {

TEST(SweepTest, ValidOnRandomProblemsWithAlignment) {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const PlacementProblem problem = testing::RandomPlacementProblem(
        {.buffers = 40, .seed = seed, .horizon = 25, .max_size = 60, .max_alignment = 8});
    const Placement placement = SweepPlacer().Place(problem, Budget());
    const PlacementCheck check = CheckPlacement(problem, placement.offsets);
    ASSERT_TRUE(check.valid) << "seed " << seed << ": " << check.error;
    EXPECT_EQ(check.arena_bytes, placement.arena_bytes);
    EXPECT_GE(placement.arena_bytes, placement.lower_bound_bytes);
    EXPECT_EQ(placement.method, "sweep");
  }
}

// Activations allocated in the forward pass and freed in reverse in the backward, with
// a temporary at every step: a stack, which the sweep packs at the bound.
TEST(SweepTest, NestedLifetimesAreAtTheBound) {
  PlacementProblem problem;
  const int64_t layers = 50;
  for (int64_t i = 0; i < layers; ++i) {
    problem.buffers.push_back(testing::TestBuffer("act" + std::to_string(i), i,
                                                  2 * layers - i, 64 + 16 * (i % 5)));
    problem.buffers.push_back(testing::TestBuffer(
        "tmp" + std::to_string(i), 2 * layers - i - 1, 2 * layers - i, 32 * (1 + i % 3)));
  }
  const Placement placement = SweepPlacer().Place(problem, Budget());
  ASSERT_TRUE(CheckPlacement(problem, placement.offsets).valid);
  EXPECT_TRUE(placement.optimal())
      << placement.arena_bytes << " vs " << placement.lower_bound_bytes;
}

TEST(SweepTest, FreedGapsAreReusedAndMerged) {
  // a and b side by side, both freed; c needs their merged bytes.
  const PlacementProblem problem{
      {testing::TestBuffer("a", 0, 2, 40), testing::TestBuffer("b", 0, 2, 40),
       testing::TestBuffer("keep", 0, 4, 8), testing::TestBuffer("c", 2, 4, 80)}};
  const Placement placement = SweepPlacer().Place(problem, Budget());
  ASSERT_TRUE(CheckPlacement(problem, placement.offsets).valid);
  EXPECT_EQ(placement.arena_bytes, 88);
  EXPECT_TRUE(placement.optimal());
}

TEST(SweepTest, FixedOffsetsAreStackedAroundValidly) {
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    const PlacementProblem problem =
        testing::RandomPlacementProblem({.buffers = 20,
                                         .seed = seed,
                                         .horizon = 10,
                                         .max_size = 30,
                                         .fixed_probability = 0.2});
    const Placement placement = SweepPlacer().Place(problem, Budget());
    const PlacementCheck check = CheckPlacement(problem, placement.offsets);
    ASSERT_TRUE(check.valid) << "seed " << seed << ": " << check.error;
  }
}

TEST(SweepTest, OutOfTimeTheRestIsStackedAndStillValid) {
  const PlacementProblem problem = testing::RandomPlacementProblem(
      {.buffers = 9000, .seed = 5, .horizon = 400, .max_size = 100});
  // wall clock: a budget already expired, the same on any machine.
  const Budget expired = Budget::Of(0.0);
  const Placement placement = SweepPlacer().Place(problem, expired);
  EXPECT_EQ(placement.stopped_by, Budget::Limit::kTime);
  EXPECT_TRUE(CheckPlacement(problem, placement.offsets).valid);
  EXPECT_GT(placement.arena_bytes, SweepPlacer().Place(problem, Budget()).arena_bytes);
}

TEST(SweepTest, LeadsTheStartingPortfolioUnlessOffsetsAreFixed) {
  PlacementProblem problem{{testing::TestBuffer("a", 0, 1, 8)}};
  EXPECT_EQ(StartingPortfolio(problem).front()->name(), "sweep");
  problem.buffers[0].fixed_offset = 0;
  EXPECT_NE(StartingPortfolio(problem).front()->name(), "sweep");
}

}  // namespace
}  // namespace olla
