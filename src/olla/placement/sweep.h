// SweepPlacer: the buffers in order of their start, each given the best-fitting free
// gap among the buffers live at that instant, as an allocator with perfect knowledge of
// frees would do it (OLLA's "simulated" baseline). O(n log n): free gaps are kept by
// size, live blocks by offset, so it places the largest traces (millions of buffers,
// half of them live at once) in about a second, where the greedy placers, which look
// at every overlapping buffer, need minutes. On training steps, whose activations are
// freed in the reverse order of their allocation, it is often at the bound; it is the
// fast first member of the greedy portfolio (greedy.h).
//
// Problems with fixed offsets are placed by stacking (it cannot respect them); the
// portfolio leaves it out for those.
#pragma once

#include <string>

#include "olla/placement/placer.h"

namespace olla {

class SweepPlacer : public Placer {
 public:
  std::string name() const override { return "sweep"; }
  Placement Place(const PlacementProblem& problem, const Budget& budget) const override;
};

}  // namespace olla
