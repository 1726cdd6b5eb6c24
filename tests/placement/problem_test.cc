#include "olla/placement/problem.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "placement_fixtures.h"

namespace olla {
namespace {

using ::testing::HasSubstr;

TEST(PlacementProblemTest, BoundIsTheLargestLiveTotal) {
  // Half-open lifetimes: a ends where c starts, so they never count together.
  const PlacementProblem problem{{testing::TestBuffer("a", 0, 2, 10),
                                  testing::TestBuffer("b", 1, 3, 20),
                                  testing::TestBuffer("c", 2, 4, 30)}};
  const LiveBytesBound bound = ComputeLiveBytesBound(problem);
  EXPECT_EQ(bound.bytes, 50);
  EXPECT_EQ(bound.time, 2);
}

TEST(PlacementProblemTest, FixedBuffersRaiseTheBound) {
  PlacementBuffer high = testing::TestBuffer("high", 0, 1, 4);
  high.fixed_offset = 100;
  const PlacementProblem problem{{high, testing::TestBuffer("low", 0, 1, 50)}};
  EXPECT_EQ(ComputeLiveBytesBound(problem).bytes, 104);
}

TEST(PlacementProblemTest, EmptyProblemHasBoundZero) {
  EXPECT_EQ(ComputeLiveBytesBound(PlacementProblem{}).bytes, 0);
}

TEST(PlacementProblemTest, ValidationNamesTheBuffer) {
  EXPECT_THAT(ValidatePlacementProblem({{testing::TestBuffer("x", 3, 3, 1)}}).message(),
              HasSubstr("buffer x: lifetime [3, 3) is empty"));
  EXPECT_THAT(ValidatePlacementProblem({{testing::TestBuffer("x", 0, 3, -1)}}).message(),
              HasSubstr("buffer x: negative size -1"));
  PlacementBuffer misaligned = testing::TestBuffer("y", 0, 1, 8);
  misaligned.alignment = 16;
  misaligned.fixed_offset = 8;
  EXPECT_THAT(ValidatePlacementProblem({{misaligned}}).message(),
              HasSubstr("fixed offset 8 is negative or not aligned to 16"));
  EXPECT_THAT(ValidatePlacementProblem({{testing::TestBuffer("a", 0, 1, INT64_MAX),
                                         testing::TestBuffer("b", 0, 1, 1)}})
                  .message(),
              HasSubstr("sizes exceed 2^62 bytes in all"));
}

TEST(PlacementProblemTest, AlignUp) {
  EXPECT_EQ(AlignUp(0, 512), 0);
  EXPECT_EQ(AlignUp(1, 512), 512);
  EXPECT_EQ(AlignUp(1024, 512), 1024);
  EXPECT_EQ(AlignUp(7, 1), 7);
}

}  // namespace
}  // namespace olla
