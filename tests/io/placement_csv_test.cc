#include "olla/io/placement_csv.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace olla {
namespace {

using ::testing::HasSubstr;

TEST(PlacementCsvTest, ReadsMiniMallocFiles) {
  const StatusOr<PlacementProblem> problem =
      ParsePlacementCsv("id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\r\n\n7,0,21,8\n");
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  ASSERT_EQ(problem->size(), 3);
  EXPECT_EQ(problem->buffers[0].id, "b1");
  EXPECT_EQ(problem->buffers[1].end, 9);
  EXPECT_EQ(problem->buffers[2].id, "7");
  EXPECT_EQ(problem->buffers[2].size, 8);
  EXPECT_EQ(problem->buffers[2].alignment, 1);
}

TEST(PlacementCsvTest, ColumnsInAnyOrderWithAlignmentAndFixedOffsets) {
  const StatusOr<PlacementProblem> problem =
      ParsePlacementCsv("size,offset,id,alignment,upper,lower\n16,32,x,16,5,1\n");
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  const PlacementBuffer& b = problem->buffers[0];
  EXPECT_EQ(b.size, 16);
  EXPECT_EQ(b.fixed_offset, 32);
  EXPECT_EQ(b.alignment, 16);
  EXPECT_EQ(b.start, 1);
  EXPECT_EQ(b.end, 5);
  const StatusOr<PlacementProblem> ignored = ParsePlacementCsv(
      "id,lower,upper,size,offset\nx,0,1,4,100\n", {.ignore_offsets = true});
  EXPECT_FALSE(ignored->buffers[0].fixed_offset.has_value());
}

TEST(PlacementCsvTest, WritesOffsets) {
  const PlacementProblem problem =
      *ParsePlacementCsv("id,lower,upper,size\na,0,2,4\nb,1,3,4\n");
  EXPECT_EQ(PlacementToCsv(problem, {0, 4}),
            "id,lower,upper,size,offset\na,0,2,4,0\nb,1,3,4,4\n");
  PlacementProblem aligned = problem;
  aligned.buffers[1].alignment = 4;
  EXPECT_EQ(PlacementToCsv(aligned, {0, 4}),
            "id,lower,upper,size,alignment,offset\na,0,2,4,1,0\nb,1,3,4,4,4\n");
}

TEST(PlacementCsvTest, ErrorsNameTheLine) {
  auto error = [](const std::string& text) {
    return ParsePlacementCsv(text).status().message();
  };
  EXPECT_EQ(error(""), "empty CSV: expected a header such as id,lower,upper,size");
  EXPECT_EQ(error("id,lower,upper\n"),
            "line 1: missing column 'size' (the header needs id, lower, upper, size)");
  EXPECT_THAT(error("id,lower,upper,size,colour\n"),
              HasSubstr("line 1: unknown column 'colour'"));
  EXPECT_EQ(error("id,lower,upper,size\na,0,1\n"), "line 2: 3 fields, the header has 4");
  EXPECT_EQ(error("id,lower,upper,size\na,0,1,big\n"),
            "line 2: column 'size': expected an integer, got 'big'");
  EXPECT_EQ(error("id,lower,upper,size\na,0,1,1.5\n"),
            "line 2: column 'size': expected an integer, got '1.5'");
  EXPECT_EQ(error("id,lower,upper,size\na,0,1,-4\n"),
            "line 2: buffer a: negative size -4");
  EXPECT_EQ(error("id,lower,upper,size\na,5,5,4\n"),
            "line 2: buffer a: lifetime [5, 5) is empty (lower must be below upper)");
  EXPECT_EQ(error("id,lower,upper,size\na,0,1,4\n\nb,0,1,4\na,2,3,4\n"),
            "line 5: duplicate id a (also on line 2)");
  EXPECT_EQ(error("id,lower,upper,size\na,0,1,99999999999999999999\n"),
            "line 2: column 'size': expected an integer, got '99999999999999999999'");
}

}  // namespace
}  // namespace olla
