// BestOfPlacer: runs several placers and keeps the smallest arena (ties to the earlier
// placer), with the best lower bound any of them proved.
//
// The placers run in batches of `threads`, each on its own thread; after a batch, it
// stops if the best arena has reached the bound, since nothing can beat it, or if the
// budget is out of time (the first batch always runs: every placer must return offsets).
// Each placer gets the whole budget. The result is the same for every thread count
// unless the clock stops it: the winner is always the earliest placer with the smallest
// arena.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "olla/placement/placer.h"

namespace olla {

class BestOfPlacer : public Placer {
 public:
  BestOfPlacer(std::string name, std::vector<std::unique_ptr<Placer>> placers,
               int threads = 1);
  std::string name() const override { return name_; }
  Placement Place(const PlacementProblem& problem, const Budget& budget) const override;

 private:
  std::string name_;
  std::vector<std::unique_ptr<Placer>> placers_;
  int threads_;
};

}  // namespace olla
