#include "olla/simulation/placement_checker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "placement_fixtures.h"

namespace olla {
namespace {

using ::testing::HasSubstr;

const PlacementProblem kTwo{
    {testing::TestBuffer("a", 0, 4, 10), testing::TestBuffer("b", 2, 6, 10)}};

TEST(PlacementCheckerTest, AcceptsDisjointAndReportsArena) {
  const PlacementCheck check = CheckPlacement(kTwo, {0, 10});
  EXPECT_TRUE(check.valid) << check.error;
  EXPECT_EQ(check.arena_bytes, 20);
}

TEST(PlacementCheckerTest, RejectsSharedBytes) {
  EXPECT_EQ(CheckPlacement(kTwo, {0, 9}).error,
            "buffers b [9, 19) and a [0, 10) share bytes while both are live at time 2");
}

TEST(PlacementCheckerTest, HalfOpenLifetimesMayReuseBytes) {
  const PlacementProblem problem{
      {testing::TestBuffer("a", 0, 2, 10), testing::TestBuffer("b", 2, 4, 10)}};
  EXPECT_TRUE(CheckPlacement(problem, {0, 0}).valid);
}

TEST(PlacementCheckerTest, RejectsMisalignedFixedAndOverCapacity) {
  PlacementProblem problem = kTwo;
  problem.buffers[1].alignment = 4;
  EXPECT_THAT(CheckPlacement(problem, {0, 10}).error, HasSubstr("not aligned to 4"));
  problem.buffers[1].fixed_offset = 12;
  EXPECT_THAT(CheckPlacement(problem, {0, 16}).error,
              HasSubstr("differs from its fixed offset"));
  EXPECT_THAT(CheckPlacement(kTwo, {0, 10}, 19).error,
              HasSubstr("the arena of 20 bytes exceeds the capacity 19"));
  EXPECT_THAT(CheckPlacement(kTwo, {0}).error, HasSubstr("1 offsets for 2 buffers"));
  EXPECT_THAT(CheckPlacement(kTwo, {-10, 10}).error, HasSubstr("negative"));
}

// Against a pairwise reference on random offsets.
TEST(PlacementCheckerTest, MatchesPairwiseReference) {
  std::mt19937_64 random(11);
  int valid = 0, invalid = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    const PlacementProblem problem =
        testing::RandomPlacementProblem({.buffers = 5, .seed = seed, .horizon = 8});
    std::vector<int64_t> offsets;
    for (size_t i = 0; i < problem.buffers.size(); ++i) offsets.push_back(random() % 16);
    bool expected = true;
    for (size_t a = 0; a < offsets.size(); ++a) {
      for (size_t b = a + 1; b < offsets.size(); ++b) {
        const PlacementBuffer& x = problem.buffers[a];
        const PlacementBuffer& y = problem.buffers[b];
        if (x.Overlaps(y) && x.size > 0 && y.size > 0 &&
            offsets[a] < offsets[b] + y.size && offsets[b] < offsets[a] + x.size) {
          expected = false;
        }
      }
    }
    ASSERT_EQ(CheckPlacement(problem, offsets).valid, expected) << seed;
    (expected ? valid : invalid) += 1;
  }
  EXPECT_GT(valid, 20);
  EXPECT_GT(invalid, 20);
}

}  // namespace
}  // namespace olla
