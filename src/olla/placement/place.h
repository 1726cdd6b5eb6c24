// Place(): the placement library's one entry point. It validates a problem, chooses the
// method, runs it within the budget and says what is known about the result; callers
// (the CLI, the pipeline, Python) only translate their options into PlaceOptions.
//
// Methods:
// - "best-fit", "first-fit": the best of the greedy orders with that fit (greedy.h).
// - "sweep": the buffers in time order, each in the best-fitting gap (sweep.h):
//   O(n log n), for the largest traces.
// - "exact": the greedy placements, then the branch-and-bound search down towards the
//   live-bytes bound (exact.h).
// - "ilp": OLLA's location ILP on CBC from the best greedy start (ilp.h).
// - "auto": exact wherever its memory stays modest (kMaxExactSectionSpans), else the
//   sweep and both greedy fits.
// With a capacity, Place decides whether everything fits: the greedy placers first
// (usually enough), then the exact search where the method allows, which either finds
// a placement or proves there is none (the result's lower bound then exceeds the
// capacity). Problems with fixed offsets are placed greedily.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "olla/core/budget.h"
#include "olla/core/status.h"
#include "olla/placement/placement.h"
#include "olla/placement/problem.h"

namespace olla {

inline constexpr const char* kPlacementMethods[] = {"auto",  "best-fit", "first-fit",
                                                    "sweep", "exact",    "ilp"};

bool IsPlacementMethod(const std::string& method);

// The exact search keeps, per section, the buffers live in it: memory grows with the
// sum of the buffers' spans in sections (pangu_2.6B's 13 M take about 0.7 GB in all, two
// searches running). Above this `auto` stays with the greedy placers (S_1 has 49 M and
// Y_1 193 M; greedy is within 0.35 % of their bounds).
inline constexpr int64_t kMaxExactSectionSpans = 16'000'000;

struct PlaceOptions {
  std::string method = "auto";      // One of kPlacementMethods.
  std::optional<int64_t> capacity;  // Decide whether all fits in it; else minimise.
  int threads = 2;                  // Placers or rank orders run at once.
};

// An error for an invalid problem (ValidatePlacementProblem), fixed offsets that
// collide among themselves, or an unknown method; otherwise the best placement found
// (valid whatever the budget: the greedy pass always completes).
StatusOr<Placement> Place(const PlacementProblem& problem, const PlaceOptions& options,
                          const Budget& budget);

}  // namespace olla
