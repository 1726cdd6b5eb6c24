#include "olla/placement/exact.h"

#include <algorithm>
#include <numeric>

#include <gtest/gtest.h>

#include "olla/placement/greedy.h"
#include "olla/simulation/placement_checker.h"

#include "placement_fixtures.h"

namespace olla {
namespace {

// Brute force: the smallest arena over every order of "lowest offset that fits". Taking
// the buffers of an optimal placement by increasing offset gives the optimum this way,
// so the minimum over all orders is the optimum.
int64_t BruteForceOptimum(const PlacementProblem& problem) {
  std::vector<int32_t> order(problem.buffers.size());
  std::iota(order.begin(), order.end(), 0);
  int64_t best = INT64_MAX;
  do {
    std::vector<int64_t> offsets(order.size(), 0);
    std::vector<bool> placed(order.size(), false);
    int64_t arena = 0;
    for (int32_t i : order) {
      const PlacementBuffer& b = problem.buffers[static_cast<size_t>(i)];
      int64_t offset = 0;
      for (bool moved = true; moved;) {  // Rise until no placed overlap collides.
        moved = false;
        offset = AlignUp(offset, b.alignment);
        for (size_t j = 0; j < order.size(); ++j) {
          const PlacementBuffer& o = problem.buffers[j];
          if (!placed[j] || !b.Overlaps(o) || b.size == 0 || o.size == 0) continue;
          if (offset < offsets[j] + o.size && offsets[j] < offset + b.size) {
            offset = offsets[j] + o.size;
            moved = true;
          }
        }
      }
      offsets[static_cast<size_t>(i)] = offset;
      placed[static_cast<size_t>(i)] = true;
      if (b.size > 0) arena = std::max(arena, offset + b.size);
    }
    best = std::min(best, arena);
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

ExactOptions TestOptions() {
  ExactOptions options;
  options.threads = 1;
  return options;
}

// Tests stop on work, never on the clock.
Budget TestBudget() { return Budget::OfWork(5'000'000); }

PlacementProblem SmallProblem(uint64_t seed) {
  return testing::RandomPlacementProblem(
      {.buffers = 7, .seed = seed, .horizon = 8, .max_size = 9, .max_alignment = 2});
}

TEST(ExactTest, MatchesBruteForceOnRandomProblems) {
  int below_greedy = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    const PlacementProblem problem = SmallProblem(seed);
    const Placement placement = ExactPlacer(TestOptions()).Place(problem, TestBudget());
    const int64_t optimum = BruteForceOptimum(problem);
    ASSERT_EQ(placement.arena_bytes, optimum) << "seed " << seed;
    ASSERT_TRUE(placement.optimal()) << "seed " << seed;
    const PlacementCheck check = CheckPlacement(problem, placement.offsets);
    ASSERT_TRUE(check.valid) << check.error;
    below_greedy += placement.method == "exact";
  }
  EXPECT_GT(below_greedy, 3);  // The search, not the greedy start, found those optima.
}

// On traces shaped like a training step (about 400 buffers), the search reaches the
// live-bytes bound where the greedy placers stop above it.
TEST(ExactTest, ReachesTheBoundOnTrainingLikeTraces) {
  int greedy_above = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const PlacementProblem problem = testing::TrainingLikePlacementProblem(60, seed);
    const Placement placement = ExactPlacer(TestOptions()).Place(problem, TestBudget());
    EXPECT_TRUE(placement.optimal()) << "seed " << seed;
    EXPECT_EQ(placement.arena_bytes, ComputeLiveBytesBound(problem).bytes)
        << "seed " << seed;
    EXPECT_TRUE(CheckPlacement(problem, placement.offsets).valid) << "seed " << seed;
    greedy_above +=
        BestGreedyPlacement(problem, 1, TestBudget()).arena_bytes > placement.arena_bytes;
  }
  EXPECT_GE(greedy_above, 3);  // Seeds 2, 3, 5 and 6.
}

TEST(ExactTest, DecidesCapacityBothWays) {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    const PlacementProblem problem = SmallProblem(seed);
    const int64_t optimum = BruteForceOptimum(problem);
    const CapacitySearch fits =
        FitUnderCapacity(problem, optimum, TestOptions(), TestBudget());
    ASSERT_EQ(fits.feasibility, Feasibility::kFits) << "seed " << seed;
    EXPECT_TRUE(CheckPlacement(problem, fits.offsets, optimum).valid);
    if (optimum == 0) continue;
    const CapacitySearch refuted =
        FitUnderCapacity(problem, optimum - 1, TestOptions(), TestBudget());
    ASSERT_EQ(refuted.feasibility, Feasibility::kDoesNotFit) << "seed " << seed;
    EXPECT_TRUE(refuted.offsets.empty());
  }
}

// Each pruning rule, switched off alone, leaves every optimum unchanged.
TEST(ExactTest, EveryPruningRuleIsSafe) {
  using Switch = bool ExactOptions::*;
  const Switch switches[] = {
      &ExactOptions::canonical_order, &ExactOptions::dominance,
      &ExactOptions::section_bound,   &ExactOptions::raise_floors,
      &ExactOptions::decompose,       &ExactOptions::place_hatless};
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const PlacementProblem problem = SmallProblem(seed);
    const int64_t optimum =
        ExactPlacer(TestOptions()).Place(problem, TestBudget()).arena_bytes;
    for (Switch rule : switches) {
      ExactOptions options = TestOptions();
      options.*rule = false;
      ASSERT_EQ(ExactPlacer(options).Place(problem, TestBudget()).arena_bytes, optimum)
          << "seed " << seed;
    }
  }
}

// Each rule prunes: with it off, refuting a capacity one below the optimum takes more
// search nodes on some problem.
TEST(ExactTest, EveryPruningRulePrunes) {
  using Switch = bool ExactOptions::*;
  for (Switch rule : {&ExactOptions::canonical_order, &ExactOptions::dominance,
                      &ExactOptions::section_bound, &ExactOptions::raise_floors,
                      &ExactOptions::place_hatless}) {
    bool pruned = false;
    for (uint64_t seed = 1; seed <= 40 && !pruned; ++seed) {
      const PlacementProblem problem = SmallProblem(seed);
      const int64_t optimum = BruteForceOptimum(problem);
      if (optimum == 0) continue;
      ExactOptions off = TestOptions();
      off.*rule = false;
      const int64_t with =
          FitUnderCapacity(problem, optimum - 1, TestOptions(), TestBudget()).nodes;
      const int64_t without =
          FitUnderCapacity(problem, optimum - 1, off, TestBudget()).nodes;
      pruned = without > with;
    }
    EXPECT_TRUE(pruned);
  }
}

TEST(ExactTest, SameAnswerOnOneAndTwoThreads) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const PlacementProblem problem = testing::RandomPlacementProblem(
        {.buffers = 40, .seed = seed, .horizon = 20, .max_size = 64});
    ExactOptions one = TestOptions();
    ExactOptions two = TestOptions();
    two.threads = 2;
    const Placement a = ExactPlacer(one).Place(problem, TestBudget());
    const Placement b = ExactPlacer(two).Place(problem, TestBudget());
    EXPECT_EQ(a.offsets, b.offsets) << "seed " << seed;
    EXPECT_EQ(a.lower_bound_bytes, b.lower_bound_bytes) << "seed " << seed;
  }
}

TEST(ExactTest, WorkLimitStopsWithTheBestFoundAndAValidBound) {
  const PlacementProblem problem = testing::RandomPlacementProblem(
      {.buffers = 60, .seed = 4, .horizon = 30, .max_size = 100});
  const Budget budget = Budget::OfWork(50);
  const Placement placement = ExactPlacer(TestOptions()).Place(problem, budget);
  EXPECT_EQ(placement.stopped_by, Budget::Limit::kWork);
  EXPECT_TRUE(CheckPlacement(problem, placement.offsets).valid);
  EXPECT_LE(placement.lower_bound_bytes, placement.arena_bytes);
  EXPECT_GE(placement.lower_bound_bytes, ComputeLiveBytesBound(problem).bytes);
}

}  // namespace
}  // namespace olla
