#include "olla/placement/greedy.h"

#include <gtest/gtest.h>

#include "olla/simulation/placement_checker.h"

#include "placement_fixtures.h"

namespace olla {
namespace {

// Five buffers where placing by decreasing size is 12.5 % above the bound: the two big
// buffers that do not overlap in time end up stacked over a gap the others cannot use.
PlacementProblem StaircaseProblem() {
  return {{testing::TestBuffer("0", 0, 2, 12), testing::TestBuffer("1", 1, 3, 24),
           testing::TestBuffer("2", 2, 4, 36), testing::TestBuffer("3", 3, 5, 48),
           testing::TestBuffer("4", 0, 2, 60)}};
}

TEST(GreedyTest, BestFitBySizeOnTheStaircase) {
  const Placement placement = GreedyPlacer({FitPolicy::kBestFit, GreedyOrder::kSize})
                                  .Place(StaircaseProblem(), Budget());
  EXPECT_EQ(placement.lower_bound_bytes, 96);
  EXPECT_EQ(placement.arena_bytes, 108);
  EXPECT_FALSE(placement.optimal());
  EXPECT_EQ(placement.method, "best-fit/size");
  EXPECT_TRUE(CheckPlacement(StaircaseProblem(), placement.offsets).valid);
}

TEST(GreedyTest, BestFitTakesTheSmallestGapFirstFitTheLowest) {
  // Placed first (by size): a big buffer over [0, 10) at 0 and two that leave gaps of
  // 6 bytes at [100, 106) and 4 bytes at [200, 204); the 4-byte buffer fits both.
  const PlacementProblem problem{
      {testing::TestBuffer("wall0", 0, 10, 100), testing::TestBuffer("wall1", 0, 10, 94),
       testing::TestBuffer("wall2", 0, 10, 90), testing::TestBuffer("small", 0, 10, 4)}};
  PlacementProblem with_gaps = problem;
  with_gaps.buffers[0].fixed_offset = 0;
  with_gaps.buffers[1].fixed_offset = 106;
  with_gaps.buffers[2].fixed_offset = 204;
  const Placement best =
      GreedyPlacer({FitPolicy::kBestFit, GreedyOrder::kSize}).Place(with_gaps, Budget());
  const Placement first =
      GreedyPlacer({FitPolicy::kFirstFit, GreedyOrder::kSize}).Place(with_gaps, Budget());
  EXPECT_EQ(best.offsets[3], 200);
  EXPECT_EQ(first.offsets[3], 100);
}

TEST(GreedyTest, RespectsAlignmentAndFixedOffsets) {
  PlacementBuffer fixed = testing::TestBuffer("fixed", 0, 4, 10);
  fixed.fixed_offset = 0;
  PlacementBuffer aligned = testing::TestBuffer("aligned", 0, 4, 8);
  aligned.alignment = 64;
  const PlacementProblem problem{{fixed, aligned, testing::TestBuffer("zero", 0, 4, 0)}};
  for (const auto& placer : AllGreedyPlacers()) {
    const Placement placement = placer->Place(problem, Budget());
    EXPECT_EQ(placement.offsets[0], 0) << placer->name();
    EXPECT_EQ(placement.offsets[1], 64) << placer->name();
    EXPECT_EQ(placement.arena_bytes, 72) << placer->name();
  }
}

// Every greedy placer, on many random problems (with alignment and fixed buffers):
// the independent checker accepts the offsets and the arena is reported right.
TEST(GreedyTest, EveryPlacerIsValidOnRandomProblems) {
  const auto placers = AllGreedyPlacers();
  ASSERT_EQ(placers.size(), 8u);
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    const PlacementProblem problem =
        testing::RandomPlacementProblem({.buffers = 30,
                                         .seed = seed,
                                         .horizon = 20,
                                         .max_size = 50,
                                         .max_alignment = 4,
                                         .fixed_probability = 0.1});
    for (const auto& placer : placers) {
      const Placement placement = placer->Place(problem, Budget());
      const PlacementCheck check = CheckPlacement(problem, placement.offsets);
      ASSERT_TRUE(check.valid) << placer->name() << " seed " << seed << ": "
                               << check.error;
      EXPECT_EQ(check.arena_bytes, placement.arena_bytes);
      EXPECT_GE(placement.arena_bytes, placement.lower_bound_bytes);
    }
  }
}

TEST(GreedyTest, OrdersDiffer) {
  // Not every order gives the same offsets: they are distinct heuristics.
  const PlacementProblem problem = testing::RandomPlacementProblem(
      {.buffers = 40, .seed = 9, .horizon = 20, .max_size = 50});
  std::set<std::vector<int64_t>> distinct;
  for (const auto& placer : AllGreedyPlacers())
    distinct.insert(placer->Place(problem, Budget()).offsets);
  EXPECT_GE(distinct.size(), 3u);
}

}  // namespace
}  // namespace olla

namespace olla {
namespace {

std::vector<std::string> Names(const std::vector<std::unique_ptr<Placer>>& placers) {
  std::vector<std::string> names;
  for (const auto& placer : placers) names.push_back(placer->name());
  return names;
}

TEST(GreedyTest, PortfolioShrinksOnLargeProblems) {
  PlacementProblem small;
  small.buffers.push_back(testing::TestBuffer("a", 0, 1, 8));
  const std::vector<FitPolicy> both = {FitPolicy::kBestFit, FitPolicy::kFirstFit};
  EXPECT_EQ(GreedyPortfolio(small, both).size(), AllGreedyPlacers().size());

  PlacementProblem large;
  for (int32_t i = 0; i <= kLargeProblemBuffers; ++i)
    large.buffers.push_back(testing::TestBuffer(std::to_string(i), i, i + 2, 8));
  EXPECT_EQ(Names(GreedyPortfolio(large, both)),
            (std::vector<std::string>{"best-fit/size", "best-fit/conflicts"}));
  EXPECT_EQ(Names(GreedyPortfolio(large, {FitPolicy::kFirstFit})),
            (std::vector<std::string>{"first-fit/size", "first-fit/conflicts"}));
}

}  // namespace
TEST(GreedyTest, OutOfTimeTheRestIsStackedAndStillValid) {
  const PlacementProblem problem = testing::RandomPlacementProblem(
      {.buffers = 600, .seed = 3, .horizon = 50, .max_size = 100});
  // wall clock: a budget already expired, the same on any machine.
  const Budget expired = Budget::Of(0.0);
  for (const auto& placer : AllGreedyPlacers()) {
    const Placement placement = placer->Place(problem, expired);
    EXPECT_EQ(placement.stopped_by, Budget::Limit::kTime) << placer->name();
    const PlacementCheck check = CheckPlacement(problem, placement.offsets);
    EXPECT_TRUE(check.valid) << placer->name() << ": " << check.error;
    EXPECT_GT(placement.arena_bytes,
              placer->Place(problem, Budget()).arena_bytes)  // Stacking costs bytes.
        << placer->name();
  }
}

}  // namespace olla
