// CheckPlacement: the independent validity check of offsets for a placement problem.
// Every placement olla writes has passed it.
//
// Valid: one offset per buffer, each non-negative and a multiple of its buffer's
// alignment, fixed buffers at their fixed offsets, within `capacity` when one is given,
// and no two buffers live at the same time sharing a byte (overlap.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "olla/placement/problem.h"

namespace olla {

struct PlacementCheck {
  bool valid = false;
  std::string error;  // The first problem found, naming buffers by their ids.
  int64_t arena_bytes = 0;
};

PlacementCheck CheckPlacement(const PlacementProblem& problem,
                              const std::vector<int64_t>& offsets,
                              std::optional<int64_t> capacity = std::nullopt);

}  // namespace olla
