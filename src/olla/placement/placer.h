// Placer: the interface every placement algorithm implements, so that algorithms are
// interchangeable and composites ("run several, keep the best") wrap any of them.
#pragma once

#include <string>

#include "olla/core/budget.h"
#include "olla/placement/placement.h"
#include "olla/placement/problem.h"

namespace olla {

class Placer {
 public:
  virtual ~Placer() = default;
  virtual std::string name() const = 0;
  // `problem` must be valid (ValidatePlacementProblem). Returns valid offsets: fixed
  // buffers at their offsets, no two overlapping buffers sharing a byte. A search stops
  // when `budget` runs out of time or work, with the best placement found; a greedy
  // placer out of time puts the buffers it has not reached on top of the others.
  virtual Placement Place(const PlacementProblem& problem,
                          const Budget& budget) const = 0;
};

}  // namespace olla
