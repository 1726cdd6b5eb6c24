// The conformance suite of the placers: every method of Place() on the same problems
// (random ones with alignments and fixed offsets, and traces shaped like a training
// step), held to what every placer promises: offsets the independent checker accepts,
// an arena no smaller than the live-bytes bound nor than the bound it claims, never
// above the best greedy start for the searches that begin there (auto, exact, ilp); a
// capacity decided right; the same offsets for the same work limit; and with no work
// at all, still a valid placement.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "olla/placement/place.h"
#include "olla/placement/problem.h"
#include "olla/simulation/placement_checker.h"

#include "placement_fixtures.h"

namespace olla {
namespace {

std::vector<PlacementProblem> Problems() {
  std::vector<PlacementProblem> problems;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    testing::RandomPlacementOptions options;
    options.buffers = 10;
    options.seed = seed;
    options.max_alignment = seed % 2 == 0 ? 4 : 1;
    options.fixed_probability = seed == 3 ? 0.2 : 0.0;
    problems.push_back(testing::RandomPlacementProblem(options));
  }
  problems.push_back(testing::TrainingLikePlacementProblem(6, 1));
  return problems;
}

Placement PlaceChecked(const PlacementProblem& problem, PlaceOptions options,
                       int64_t work) {
  StatusOr<Placement> placement = Place(problem, options, Budget::OfWork(work));
  OLLA_CHECK(placement.ok(), placement.status().message());
  const PlacementCheck check = CheckPlacement(problem, placement->offsets);
  OLLA_CHECK(check.valid, options.method + ": " + check.error);
  OLLA_CHECK(check.arena_bytes == placement->arena_bytes, "arena is not the offsets'");
  return std::move(placement).value();
}

class PlaceConformanceTest : public ::testing::TestWithParam<const char*> {};

TEST_P(PlaceConformanceTest, KeepsEveryPromiseOnEveryProblem) {
  PlaceOptions options;
  options.method = GetParam();
  PlaceOptions greedy = options;
  greedy.method = "best-fit";
  const bool starts_greedy =
      options.method == "auto" || options.method == "exact" || options.method == "ilp";
  int index = 0;
  for (const PlacementProblem& problem : Problems()) {
    SCOPED_TRACE("problem " + std::to_string(index++));
    const Placement placed = PlaceChecked(problem, options, 100'000);
    EXPECT_GE(placed.arena_bytes, ComputeLiveBytesBound(problem).bytes);
    EXPECT_GE(placed.arena_bytes, placed.lower_bound_bytes);
    if (starts_greedy) {
      EXPECT_LE(placed.arena_bytes, PlaceChecked(problem, greedy, 100'000).arena_bytes);
    }
    EXPECT_EQ(PlaceChecked(problem, options, 100'000).offsets, placed.offsets)
        << "not deterministic";

    // A capacity: whatever comes back is valid, and a fit is claimed only within it.
    PlaceOptions fitting = options;
    fitting.capacity = placed.arena_bytes;
    EXPECT_LE(PlaceChecked(problem, fitting, 100'000).arena_bytes, placed.arena_bytes)
        << "missed a capacity its own minimum meets";

    PlaceChecked(problem, options, 0);  // No work: still valid offsets.
  }
}

std::string MethodName(const ::testing::TestParamInfo<const char*>& method) {
  std::string name = method.param;
  std::erase(name, '-');  // best-fit: a test name has letters and digits only.
  return name;
}

INSTANTIATE_TEST_SUITE_P(EveryMethod, PlaceConformanceTest,
                         ::testing::ValuesIn(kPlacementMethods), MethodName);

}  // namespace
}  // namespace olla
