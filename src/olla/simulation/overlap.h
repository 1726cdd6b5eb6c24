// FindOverlap: the independent test that no two buffers live at the same time share a
// byte. Both checkers (plan_checker.h for graphs, placement_checker.h for bare
// placement problems) rest on it.
//
// A sweep over time keeps the live buffers in a map keyed by offset; the map never
// holds two overlapping buffers, so each new buffer is compared with its two
// neighbours only. Zero-size buffers occupy no bytes. Cost: O(n log n).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "olla/placement/problem.h"

namespace olla {

struct Overlap {
  int32_t first = 0;  // Indices into problem.buffers.
  int32_t second = 0;
  int64_t time = 0;  // An instant at which both are live.
};

// `offsets` has one entry per buffer of `problem`.
std::optional<Overlap> FindOverlap(const PlacementProblem& problem,
                                   const std::vector<int64_t>& offsets);

}  // namespace olla
