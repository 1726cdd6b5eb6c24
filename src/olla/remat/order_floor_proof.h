// Raising the order's floor (order_floor.h) by what a step's later readers need:
// a proof that every plan on an order peaks at some number of bytes or more.
//
// The order's floor takes every droppable buffer off a step where a plan may have
// freed it. But a buffer a later step reads must then be made again in time, and the
// runs that make it need their inputs live, and those need theirs: at the last
// GELU backward of vit_b_16 at batch 32 the floor is 251.8 MB, yet every plan on the
// order peaks at 271.1 MB, for a layer's residual (19.4 MB) that the MLP's backward
// reads three steps later can be held through the step or made again from the image,
// by running some layer's MLP while the GELU's gradient (77.5 MB) waits.
//
// The proof supposes a plan that peaks below P and finds a moment where it cannot:
//  * At any moment, whatever a later step reads (within a window of kWindow steps) is
//    live, or made later, before that step, by runs whose inputs are live then or made
//    in turn. So the live set holds a cut between those buffers and what no run can make
//    (the step's inputs, a buffer whose producer cannot run in time; each can be held,
//    a run that reads an original keeping it): a minimum vertex cut, the buffers' bytes
//    the capacities, what is surely live free (LEMON's max flow, min_cut_bound.h).
//  * A run between two steps has its inputs, outputs and workspace live, the buffers the
//    order keeps live across the gap, and such a cut. Take the last run, between a
//    step and a later read, of any op of a set X: after it, only ops outside X make
//    anything. If every op of X, in every gap before the read, peaks at P or more so,
//    no op of X runs there. X starts as every op that might run and loses each op that
//    could be the last run below P, until none does (then what is left never runs).
//  * At a step, the live bytes the order's floor counts plus the cut over what no
//    remaining run can make in time: at P or more, the plan below P does not exist.
// Sound for the plans budget mode's search makes on the order (recomputable.h: copies
// for late readers, runs reading copies or originals), and for more: nothing assumes
// how often an op runs, only that each run's inputs are live and outputs allocated.
// On vit_b_16 at batch 32 it proves 271,098,296 bytes where the search's plan peaks at
// 271,172,868 (docs/budget.md).
//
// Cost: steps are tried only where the order's floor and what waits there reach P, most
// kept bytes first; per step, O(kWindow * (ops + buffers)) to set up, then passes over
// X per later read, X only the ops that make what the window reads (or what that is
// made from), a max flow per op and gap (skipped where the run's live bytes and every
// waiting buffer stay below P); one unit of work per flow. Anytime: out of budget, it
// proves nothing more.
#pragma once

#include <cstdint>

#include "olla/core/budget.h"
#include "olla/graph/graph.h"
#include "olla/graph/order.h"
#include "olla/remat/order_floor.h"

namespace olla {

// The most bytes the proof shows every plan on `order` peaking below `peak` must hold
// at one of its steps, and that step: at `peak` or more, every plan peaks at `peak`
// or more; below it, still the least peak of every plan (what a plan below `peak` must
// hold, one below this must too). At least the order's floor.
OrderFloor ProveOrderFloor(const Graph& graph, const Order& order, int64_t peak,
                           const Budget& budget);

// `floor` raised to the highest peak in (floor.bytes, ceiling] the proof reaches (by
// bisection, to within 1/4096 of it); `floor` when it reaches none.
OrderFloor RaiseOrderFloor(const Graph& graph, const Order& order, OrderFloor floor,
                           int64_t ceiling, const Budget& budget);

}  // namespace olla
