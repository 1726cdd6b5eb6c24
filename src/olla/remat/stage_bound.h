// A time-indexed lower bound on the compute budget mode must add to fit a target: the
// stages of Checkmate (Jain et al., MLSys 2020) in olla's memory accounting, relaxed so
// that every plan on the order is one of its solutions, where the covering bound
// (added_cost_bound.h) does not see when each run happens.
//
// Stage p ends with the order's op at step p; the runs of a plan between steps p - 1
// and p belong to it. Per stage: which ops run again in it (at least once: a second run
// of an op in one stage, as chains of their own make, is not charged), and which
// buffers are live when it begins. A buffer live when a stage begins was live when the
// one before began or was made in it; every read, by the op at the stage's step or by a
// run in it, finds its buffer live when the stage began or made in the stage. What must
// fit the target:
//  - at each step, its op's inputs, outputs and workspace, and every buffer live when
//    the next stage begins (it was made by then and is read later);
//  - at each run, its op's inputs, outputs and workspace, and every buffer live when
//    its stage begins, read at its step or live when the next stage begins, that the
//    stage does not make again (live through the whole stage, whatever order its runs
//    take).
// The least compute of the runs under those constraints bounds every plan on the order;
// an ILP of O(steps x buffers live across them) variables, for graphs of about a hundred
// ops (Checkmate's VGGs, segnet and vgg_unet), solved by CBC within the budget.
#pragma once

#include <cstdint>
#include <optional>

#include "olla/analysis/lifetimes.h"
#include "olla/core/budget.h"
#include "olla/graph/graph.h"
#include "olla/graph/order.h"
#include "olla/remat/recomputable.h"

namespace olla {

struct StageBound {
  int64_t cost = 0;             // OpCost units; no plan on the order adds less.
  bool proven_optimal = false;  // `cost` is the stage model's optimum.
};

// Nullopt when the model would pass 400,000 entries (about a hundred ops); a cost of 0,
// not optimal, when it cannot be solved within `budget` or the solver ends with no
// bound. A target every step meets without runs gets 0.
std::optional<StageBound> BoundAddedCostByStages(const Graph& graph, const Order& order,
                                                 const Lifetimes& lifetimes,
                                                 const RecomputableBuffers& buffers,
                                                 int64_t target_bytes,
                                                 const Budget& budget);

}  // namespace olla
