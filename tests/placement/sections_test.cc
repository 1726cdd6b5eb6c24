#include "olla/placement/sections.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace olla {
namespace {

using ::testing::ElementsAre;

PlacementBuffer Buffer(int64_t start, int64_t end) {
  PlacementBuffer b;
  b.id = std::to_string(start) + "-" + std::to_string(end);
  b.start = start;
  b.end = end;
  b.size = 1;
  return b;
}

TEST(SectionsTest, CutsTimeAtEveryStartAndEnd) {
  const Sections sections = ComputeSections({{Buffer(0, 4), Buffer(2, 6), Buffer(6, 8)}});
  EXPECT_THAT(sections.times, ElementsAre(0, 2, 4, 6, 8));
  EXPECT_EQ(sections.size(), 4);
  EXPECT_EQ(sections.of_buffer[1].first, 1);
  EXPECT_EQ(sections.of_buffer[1].last, 3);
  EXPECT_THAT(sections.buffers_in[1], ElementsAre(0, 1));
}

TEST(SectionsTest, SplitsIntoPartitionsWhereNoBufferCrosses) {
  // [0,4) and [2,6) meet; [6,8) starts where they end; [10,12) after a gap.
  const Sections sections =
      ComputeSections({{Buffer(0, 4), Buffer(6, 8), Buffer(2, 6), Buffer(10, 12)}});
  ASSERT_EQ(sections.partitions.size(), 3u);
  EXPECT_THAT(sections.partitions[0].buffers, ElementsAre(0, 2));
  EXPECT_THAT(sections.partitions[1].buffers, ElementsAre(1));
  EXPECT_THAT(sections.partitions[2].buffers, ElementsAre(3));
}

TEST(SectionsTest, CountsSpansWithoutBuildingSections) {
  // Sections [0,2) [2,4) [4,6) [6,8) [8,10) [10,12): spans 2, 2, 1, 1.
  const PlacementProblem problem{
      {Buffer(0, 4), Buffer(2, 6), Buffer(6, 8), Buffer(10, 12)}};
  EXPECT_EQ(CountSectionSpans(problem), 6);
  int64_t built = 0;
  for (const SectionRange& range : ComputeSections(problem).of_buffer)
    built += range.last - range.first;
  EXPECT_EQ(CountSectionSpans(problem), built);
}

}  // namespace
}  // namespace olla
