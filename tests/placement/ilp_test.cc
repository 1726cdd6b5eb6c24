#include "olla/placement/ilp.h"

#include <gtest/gtest.h>

#include "olla/placement/exact.h"
#include "olla/simulation/placement_checker.h"

#include "placement_fixtures.h"

namespace olla {
namespace {

// The location ILP is optimal on random problems of 20 buffers: it matches the exact
// search, and its offsets pass the checker. Without the stacking constraints CBC does
// not prove the first of them within 30 s (bench/results/placement.md has 30 and 40
// buffers).
TEST(IlpTest, OptimalOnRandomProblems) {
  ExactOptions exact;
  exact.threads = 1;
  // Work limits only: CBC's nodes for the ILP, search nodes for the reference.
  const Budget ilp_budget = Budget::OfWork(1'000'000);
  int improved = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    const PlacementProblem problem = testing::RandomPlacementProblem(
        {.buffers = 20, .seed = seed, .horizon = 16, .max_size = 40});
    const Placement ilp = IlpPlacer().Place(problem, ilp_budget);
    const Placement reference =
        ExactPlacer(exact).Place(problem, Budget::OfWork(5'000'000));
    ASSERT_TRUE(reference.optimal());
    EXPECT_EQ(ilp.arena_bytes, reference.arena_bytes) << "seed " << seed;
    EXPECT_TRUE(ilp.optimal()) << "seed " << seed;
    EXPECT_TRUE(CheckPlacement(problem, ilp.offsets).valid) << "seed " << seed;
    improved += ilp.method == "ilp";
  }
  EXPECT_GT(improved, 0);  // The solver, not the greedy start, found some optima.
}

TEST(IlpTest, RespectsAlignment) {
  PlacementProblem problem{
      {testing::TestBuffer("a", 0, 4, 12), testing::TestBuffer("b", 2, 6, 24),
       testing::TestBuffer("c", 3, 8, 8), testing::TestBuffer("d", 0, 2, 30)}};
  for (PlacementBuffer& b : problem.buffers) b.alignment = 16;
  const Placement placement = IlpPlacer().Place(problem, Budget::OfWork(1'000'000));
  const PlacementCheck check = CheckPlacement(problem, placement.offsets);
  EXPECT_TRUE(check.valid) << check.error;
  EXPECT_TRUE(placement.optimal());
}

}  // namespace
}  // namespace olla
