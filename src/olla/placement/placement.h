// Placement: offsets for every buffer of a PlacementProblem, and what is known about
// how good they are.
//
// A placer's result carries valid offsets (every placer finds some: the greedy ones
// always succeed, and searches start from them), the arena they need, and the best
// lower bound proved on the smallest possible arena; `optimal` means the two meet.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "olla/core/budget.h"
#include "olla/core/bytes.h"
#include "olla/placement/problem.h"

namespace olla {

struct Placement {
  std::vector<int64_t> offsets;   // offsets[i] for problem.buffers[i].
  int64_t arena_bytes = 0;        // max(offset + size) over the buffers.
  int64_t lower_bound_bytes = 0;  // Proven: no placement fits in fewer bytes.
  std::string method;             // The placer that produced the offsets.
  // The limit that stopped the search before it proved its result optimal (kNone when it
  // finished, or when nothing was left to search).
  Budget::Limit stopped_by = Budget::Limit::kNone;

  bool optimal() const { return arena_bytes == lower_bound_bytes; }
  double gap() const { return Gap(arena_bytes, lower_bound_bytes); }  // core/bytes.h
};

// max(offset + size) over the problem's buffers.
int64_t ArenaOf(const PlacementProblem& problem, const std::vector<int64_t>& offsets);

}  // namespace olla
