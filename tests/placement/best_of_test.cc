#include "olla/placement/best_of.h"

#include <gtest/gtest.h>

#include "olla/placement/greedy.h"

#include "placement_fixtures.h"

namespace olla {
namespace {

// A fake placer that returns a fixed arena and counts its calls.
class FakePlacer : public Placer {
 public:
  FakePlacer(std::string name, int64_t arena, int64_t bound, int* calls)
      : name_(std::move(name)), arena_(arena), bound_(bound), calls_(calls) {}
  std::string name() const override { return name_; }
  Placement Place(const PlacementProblem&, const Budget&) const override {
    ++*calls_;
    Placement placement;
    placement.arena_bytes = arena_;
    placement.lower_bound_bytes = bound_;
    placement.method = name_;
    return placement;
  }

 private:
  std::string name_;
  int64_t arena_, bound_;
  int* calls_;
};

TEST(BestOfTest, KeepsTheSmallestArenaAndTheBestBound) {
  int calls = 0;
  std::vector<std::unique_ptr<Placer>> placers;
  placers.push_back(std::make_unique<FakePlacer>("a", 120, 80, &calls));
  placers.push_back(std::make_unique<FakePlacer>("b", 100, 90, &calls));
  placers.push_back(std::make_unique<FakePlacer>("c", 100, 70, &calls));
  const Placement best = BestOfPlacer("best", std::move(placers)).Place({}, Budget());
  EXPECT_EQ(best.method, "b");  // Ties go to the earlier placer.
  EXPECT_EQ(best.arena_bytes, 100);
  EXPECT_EQ(best.lower_bound_bytes, 90);
  EXPECT_EQ(calls, 3);
}

TEST(BestOfTest, StopsOnceTheBoundIsReached) {
  int calls = 0;
  std::vector<std::unique_ptr<Placer>> placers;
  placers.push_back(std::make_unique<FakePlacer>("a", 80, 80, &calls));
  placers.push_back(std::make_unique<FakePlacer>("b", 70, 70, &calls));
  EXPECT_EQ(BestOfPlacer("best", std::move(placers)).Place({}, Budget()).method, "a");
  EXPECT_EQ(calls, 1);
}

TEST(BestOfTest, SameResultOnOneOrTwoThreads) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const PlacementProblem problem = testing::RandomPlacementProblem(
        {.buffers = 60, .seed = seed, .horizon = 30, .max_size = 100});
    const Placement one =
        BestOfPlacer("all", AllGreedyPlacers(), 1).Place(problem, Budget());
    const Placement two =
        BestOfPlacer("all", AllGreedyPlacers(), 2).Place(problem, Budget());
    EXPECT_EQ(one.offsets, two.offsets);
    EXPECT_EQ(one.method, two.method);
  }
}

}  // namespace
}  // namespace olla
