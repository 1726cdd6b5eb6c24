#include "olla/placement/interval_index.h"

#include <gtest/gtest.h>

#include "placement_fixtures.h"

namespace olla {
namespace {

// Against brute force: every query returns exactly the active overlapping buffers, in
// increasing order of start, as buffers are activated one by one.
TEST(IntervalIndexTest, MatchesBruteForceAsBuffersActivate) {
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    const PlacementProblem problem =
        testing::RandomPlacementProblem({.buffers = 40, .seed = seed, .horizon = 30});
    IntervalIndex index(problem, /*all_active=*/false);
    std::vector<bool> active(problem.buffers.size(), false);
    for (int32_t step = 0; step < problem.size(); ++step) {
      for (int64_t start = 0; start < 30; start += 3) {
        for (int64_t end = start + 1; end <= 30; end += 4) {
          std::vector<int32_t> expected;
          for (int32_t i = 0; i < problem.size(); ++i) {
            const PlacementBuffer& b = problem.buffers[static_cast<size_t>(i)];
            if (active[static_cast<size_t>(i)] && b.start < end && start < b.end) {
              expected.push_back(i);
            }
          }
          std::vector<int32_t> actual;
          index.ForEachOverlapping(start, end, [&](int32_t i) { actual.push_back(i); });
          std::sort(expected.begin(), expected.end(), [&](int32_t a, int32_t b) {
            const int64_t sa = problem.buffers[static_cast<size_t>(a)].start;
            const int64_t sb = problem.buffers[static_cast<size_t>(b)].start;
            return sa != sb ? sa < sb : a < b;
          });
          ASSERT_EQ(actual, expected)
              << "seed " << seed << " [" << start << ", " << end << ")";
        }
      }
      index.Activate(step);
      active[static_cast<size_t>(step)] = true;
    }
  }
}

TEST(IntervalIndexTest, AllActiveSeesEverything) {
  const PlacementProblem problem =
      testing::RandomPlacementProblem({.buffers = 50, .seed = 3});
  const IntervalIndex index(problem, /*all_active=*/true);
  int count = 0;
  index.ForEachOverlapping(INT64_MIN, INT64_MAX, [&](int32_t) { ++count; });
  EXPECT_EQ(count, 50);
}

}  // namespace
}  // namespace olla
