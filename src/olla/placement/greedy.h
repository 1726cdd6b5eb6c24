// Greedy placers: take the buffers one at a time in a priority order and put each at
// an offset among the buffers already placed that overlap it in time.
//
// - Best fit puts a buffer in the smallest gap that holds it (ties to the lowest
//   offset), first fit in the lowest gap; with no gap, on top of the highest
//   overlapping buffer. Gaps respect each buffer's alignment.
// - Orders: decreasing size (XLA's and TensorFlow Lite's choice), decreasing lifetime,
//   decreasing area (size x lifetime), decreasing number of conflicts. Ties break on
//   size, then lifetime, then index, so results are deterministic.
// - Buffers with a fixed offset are placed first, where they are fixed.
// - Out of time (the budget's clock, read every 256 buffers), the buffers not reached
//   yet are stacked on top, so a valid placement still comes back at once.
// Cost: O(n log n + sum over buffers of k log k), k the buffers overlapping each one
// (IntervalIndex finds them without scanning everything).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "olla/placement/placer.h"

namespace olla {

enum class FitPolicy { kBestFit, kFirstFit };
enum class GreedyOrder { kSize, kLifetime, kArea, kConflicts };

struct GreedyOptions {
  FitPolicy fit = FitPolicy::kBestFit;
  GreedyOrder order = GreedyOrder::kSize;
};

class GreedyPlacer : public Placer {
 public:
  explicit GreedyPlacer(GreedyOptions options) : options_(options) {}
  std::string name() const override;  // For example "best-fit/size".
  Placement Place(const PlacementProblem& problem, const Budget& budget) const override;

 private:
  GreedyOptions options_;
};

// Every combination of fit policy and order, best fit first.
std::vector<std::unique_ptr<Placer>> AllGreedyPlacers();

// The placers worth running on `problem` with `fits` (one or both policies): every order
// up to kLargeProblemBuffers buffers; above it only decreasing size and decreasing
// conflicts, the two orders that won on every large trace measured (bench/results),
// and only best fit when it is among `fits` (first fit lost on S_1 and Y_1), since
// each variant costs seconds there.
inline constexpr int32_t kLargeProblemBuffers = 20000;
std::vector<std::unique_ptr<Placer>> GreedyPortfolio(const PlacementProblem& problem,
                                                     std::vector<FitPolicy> fits);

// The sweep (sweep.h, unless offsets are fixed) and the portfolio of both fit policies:
// where the searches start, and what "auto" runs where the exact search does not.
std::vector<std::unique_ptr<Placer>> StartingPortfolio(const PlacementProblem& problem);

// The best placement of the starting portfolio, on `threads` threads. Out of time, it
// keeps what the first batch found.
Placement BestGreedyPlacement(const PlacementProblem& problem, int threads,
                              const Budget& budget);

}  // namespace olla
