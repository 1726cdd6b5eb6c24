#include "olla/solver/milp_model.h"

#include <cmath>

#include <gtest/gtest.h>

#include "olla/solver/milp_solver.h"

namespace olla {
namespace {

// 0 <= x <= 4 integer, 0 <= y continuous, 1 <= x + 2y <= 3.
MilpModel Small() {
  MilpModel model;
  const int32_t x = model.AddVariable("x", 0, 4, 1, true);
  const int32_t y = model.AddVariable("y", 0, kInfinity, 1, false);
  model.AddConstraint("range", {{x, 1}, {y, 2}}, 1, 3);
  return model;
}

TEST(MilpModelTest, IsFeasibleChecksBoundsIntegralityAndRows) {
  const MilpModel model = Small();
  EXPECT_TRUE(model.IsFeasible({1, 0.5}));
  EXPECT_TRUE(model.IsFeasible({3, 0}));
  EXPECT_TRUE(model.IsFeasible({1 + 1e-9, 0.5}));  // Within the tolerance.
  EXPECT_FALSE(model.IsFeasible({1.5, 0.25}));     // x is integer.
  EXPECT_FALSE(model.IsFeasible({0, -0.5}));       // y >= 0, though the row holds.
  EXPECT_FALSE(model.IsFeasible({0, 0}));          // The row's lower side.
  EXPECT_FALSE(model.IsFeasible({2, 1}));          // The row's upper side.
  EXPECT_FALSE(model.IsFeasible({1}));             // One value per variable.
  EXPECT_FALSE(model.IsFeasible({1, std::nan("")}));
}

}  // namespace
}  // namespace olla

namespace olla {
namespace {

TEST(FitsInTimeTest, ModelsTooLargeForTheTimeLeftAreNotSolved) {
  MilpModel model;
  const int32_t x = model.AddVariable("x", 0, 10, 1, true);
  const int32_t y = model.AddBinary("y");
  model.AddConstraint("c", {{x, 1}, {y, 1}}, 1, kInfinity);
  EXPECT_EQ(ModelEntries(model), 4);  // Two variables, two terms.
  // Without a deadline the work limit decides alone.
  EXPECT_TRUE(FitsInTime(int64_t{1} << 60, Budget::OfWork(1)));
  // wall clock: a deadline far enough that no stall of the machine matters.
  const Budget thousand_seconds = Budget::Of(1000.0);
  EXPECT_TRUE(FitsInTime(1'000'000, thousand_seconds));
  EXPECT_FALSE(FitsInTime(int64_t{100'000'000'000}, thousand_seconds));
}

}  // namespace
}  // namespace olla
