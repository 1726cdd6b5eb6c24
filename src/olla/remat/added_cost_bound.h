// A lower bound on the compute budget mode must add to fit a target, so that a report
// can say how far its plan is from the best there is (docs/budget.md).
//
// The plans it bounds keep the given order of the graph's ops and recompute as the
// search does (order_floor.h): at each step whose live bytes exceed the target, the
// producers run again must together free the excess from the buffers that can be
// freed there. Below the order's floor no producers do; BoundAddedCost raises that
// floor by what later steps read (order_floor_proof.h), with half its budget: whether
// it passes the target, and then how far.
//
// Choosing the least-cost set of producers that does so at every step is a covering
// problem, solved by CBC as an ILP (each row's coefficients capped at what it can ask,
// which keeps the integer optimum and tightens the relaxation); its best proven bound
// bounds every plan's added cost. A buffer absent at a step is made again after it,
// by a run that reads its producer's inputs then: an input the order has freed by that
// step is held through it (its bytes count at the steps between) or made again itself
// after it died (its producer paid for too, its own inputs so, recursively). Without
// that, a plan that dropped what a matmul's output is cheaply made from (a GELU's, a
// view's copy) priced the cheap run alone: on vit_b_16 at half its peak the bound's
// own solution, made into a plan, peaked 48 % above the budget, the matmul outputs it
// reads held until the backward pass. (Solved first without the runs' inputs, a smaller
// model that solves in little time, then with them in the time left; the higher of the
// two bounds.) Each run is paid for: where an op makes one buffer, a buffer absent
// before two of its reads is made twice, and one a run reads that is absent before
// that run and again after the read the run serves is made twice in that gap. A step
// whose excess no dropping can free proves that no plan on this order reaches the
// target: the target lies below the order's floor.
//
// On graphs of about a hundred ops at most, the bound is then raised by a model that
// knows when each run happens (stage_bound.h), in the time left.
//
// Cost: O(ops + buffers + the droppable buffers' free steps + the steps the inputs
// their runs read are held + the pairs of stretches an input of a run is absent in
// before and after it) to build the ILP; the ILP within the budget (its best bound
// when the budget ends, 0 when the model is too large to build in time).
#pragma once

#include <cstdint>

#include "olla/core/budget.h"
#include "olla/graph/graph.h"
#include "olla/graph/order.h"
#include "olla/remat/order_floor.h"

namespace olla {

struct AddedCostBound {
  int64_t cost = 0;  // OpCost units; no plan on the order adds less.
  // `cost` is the covering problem's optimum, or the stage model's.
  bool proven_optimal = false;
  // More time would not raise `cost`: the covering model with the runs' inputs and the
  // stage model (where the graph is small enough for it) were solved to their optima.
  bool settled = false;
  OrderFloor floor;  // Of the order: no plan on it peaks lower.
  // False: the target lies below the order's floor, and no plan on it reaches the
  // target (then `cost` is meaningless).
  bool reachable = true;
};

AddedCostBound BoundAddedCost(const Graph& graph, const Order& order,
                              int64_t target_bytes, const Budget& budget);

}  // namespace olla
