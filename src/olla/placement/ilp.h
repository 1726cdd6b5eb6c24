// The OLLA location ILP, solved through the MilpSolver interface.
//
// An integer offset per buffer and the arena top z (minimised); for every pair of
// buffers whose lifetimes intersect, a binary chooses "below" or "above" with big-M
// constraints (M = the best greedy arena, which is also the upper bound on z). As in
// OLLA: buffers live for the whole problem are stacked at fixed offsets from 0 (without
// loss: any placement can move them there), the best greedy placement is the MIP start,
// and the live-bytes bound bounds z from below (CBC stalls far from optimal without
// it). Beyond OLLA, stacking constraints per maximal set of buffers live together: each
// offset lies above the sizes of the members below it, and z above its end plus the
// sizes of the members above it; they let CBC prove random 30-buffer problems optimal
// in seconds, where the pairwise model alone did not close 20-buffer ones in 30 s.
// Size: O(n + pairs + sum of maximal live sets squared), so it suits small problems.
#pragma once

#include <functional>
#include <memory>

#include "olla/placement/placer.h"
#include "olla/solver/milp_solver.h"

namespace olla {

// The budget's work units are CBC's branch-and-bound nodes.
struct IlpOptions {
  int threads = 1;
  std::function<std::unique_ptr<MilpSolver>()> solver = MakeDefaultMilpSolver;
};

class IlpPlacer : public Placer {
 public:
  explicit IlpPlacer(IlpOptions options = {}) : options_(std::move(options)) {}
  std::string name() const override { return "ilp"; }
  Placement Place(const PlacementProblem& problem, const Budget& budget) const override;

 private:
  IlpOptions options_;
};

}  // namespace olla
