#include "olla/core/budget.h"

#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace olla {
namespace {

TEST(BudgetTest, UnlimitedNeverRunsOut) {
  const Budget budget;
  EXPECT_FALSE(budget.has_deadline());
  EXPECT_FALSE(budget.has_work_limit());
  EXPECT_TRUE(budget.Spend(1'000'000));
  EXPECT_FALSE(budget.Exhausted());
  EXPECT_EQ(budget.Reached(), Budget::Limit::kNone);
  EXPECT_EQ(budget.work_spent(), 1'000'000);
}

TEST(BudgetTest, WorkRunsOutExactly) {
  const Budget budget = Budget::OfWork(10);
  EXPECT_TRUE(budget.Spend(9));
  EXPECT_EQ(budget.work_left(), 1);
  EXPECT_FALSE(budget.Spend(1));
  EXPECT_TRUE(budget.Exhausted());
  EXPECT_EQ(budget.Reached(), Budget::Limit::kWork);
}

TEST(BudgetTest, SplitGetsAShareAndChargesTheWhole) {
  const Budget whole = Budget::OfWork(1000);
  whole.Spend(200);
  const Budget part = whole.Split(0.25);
  EXPECT_EQ(part.work_left(), 200);  // A quarter of the 800 left.
  part.Spend(150);
  EXPECT_EQ(part.work_spent(), 150);
  EXPECT_EQ(whole.work_spent(), 350);
  EXPECT_EQ(whole.work_left(), 650);
  EXPECT_FALSE(part.Spend(50));
  EXPECT_EQ(whole.work_left(), 600);
  EXPECT_FALSE(whole.Exhausted());
}

TEST(BudgetTest, APartNeverOutlastsItsWhole) {
  const Budget whole = Budget::OfWork(100);
  const Budget part = whole.Split(1.0);
  whole.Spend(100);  // Spent elsewhere: the part has nothing left either.
  EXPECT_EQ(part.work_left(), 0);
  EXPECT_TRUE(part.Exhausted());
}

TEST(BudgetTest, SplittingUnlimitedWorkStaysUnlimited) {
  EXPECT_FALSE(Budget().Split(0.5).has_work_limit());
  EXPECT_FALSE(Budget().Split(0.5).has_deadline());
}

TEST(BudgetTest, AZeroTimeLimitIsOutOfTime) {
  // wall clock: the budget's own deadline, with nothing to search.
  const Budget budget = Budget::Of(0.0);
  EXPECT_TRUE(budget.has_deadline());
  EXPECT_TRUE(budget.OutOfTime());
  EXPECT_EQ(budget.Reached(), Budget::Limit::kTime);
  EXPECT_EQ(budget.seconds_left(), 0.0);
}

TEST(BudgetTest, AHugeTimeLimitIsNoDeadline) {
  // wall clock: the budget's own deadline, with nothing to search.
  EXPECT_FALSE(Budget::Of(1e300).has_deadline());
  // wall clock: as above.
  EXPECT_FALSE(Budget::Of(std::numeric_limits<double>::infinity()).has_deadline());
}

TEST(BudgetTest, StopReachesEveryPartFromAnyThread) {
  const Budget whole;
  const Budget part = whole.Split(0.5).Split(0.5);
  std::thread([&] { part.RequestStop(); }).join();
  EXPECT_TRUE(whole.OutOfTime());
  EXPECT_EQ(whole.Reached(), Budget::Limit::kStop);
}

TEST(BudgetTest, ConcurrentSpendingIsCounted) {
  const Budget budget = Budget::OfWork(1'000'000);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10'000; ++i) budget.Spend(1);
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(budget.work_spent(), 40'000);
}

// A reserve moves the deadline only (never below half the time left) and shares the
// work account, so work-limited runs do not change.
TEST(BudgetTest, AReserveEndsEarlierWithTheSameWork) {
  const Budget whole =
      Budget::Of(1000, 10);  // wall clock: a deadline far away, compared only
  const Budget part = whole.Reserving(10);
  EXPECT_LT(part.seconds_left(), whole.seconds_left() - 9);
  EXPECT_GT(part.seconds_left(), 900);
  EXPECT_EQ(part.work_left(), 10);
  EXPECT_GT(whole.Reserving(800).seconds_left(), 400);  // Half of 1000 at most.
  EXPECT_LT(whole.Reserving(800).seconds_left(), 600);
  EXPECT_FALSE(part.Spend(10));
  EXPECT_EQ(whole.work_left(), 0);
  EXPECT_FALSE(Budget::OfWork(5).Reserving(3).has_deadline());
}

TEST(BudgetTest, LimitNames) {
  EXPECT_STREQ(LimitName(Budget::Limit::kNone), "none");
  EXPECT_STREQ(LimitName(Budget::Limit::kTime), "time");
  EXPECT_STREQ(LimitName(Budget::Limit::kWork), "work");
  EXPECT_STREQ(LimitName(Budget::Limit::kStop), "stop");
}

}  // namespace
}  // namespace olla
