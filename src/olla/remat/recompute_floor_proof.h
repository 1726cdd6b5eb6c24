// Raising the recompute floor (recompute_floor.h) by what a later reader needs: a
// proof, over every order and every recomputation, that each plan peaks at some number
// of bytes or more.
//
// The recompute floor counts, at an op, its footprint and the buffers no recomputation
// frees. But a later reader's other inputs must be live when it runs: held since, or
// made again in between by runs whose inputs are held or made in turn, and those runs
// hold their own footprints beside whatever waits. On Checkmate's ResNet50 the floor is
// 3.70 GB, at a convolution's backward near the input (3.29 GB of operands); the first
// pooling's backward, a few ops on, reads 822 MB that no run in between can make
// without passing 4.11 GB, so every plan, in every order, peaks at 4.11 GB or more: the
// arena budget mode fits there.
//
// The proof supposes a plan that peaks below P. Take an op v, the first run of v (at
// time t), and a descendant c of v; I is the time from t to the first run of c.
//  * Buffers no recomputation makes again, made before t (by v's ancestors, or inputs
//    of the graph) and read by c, a descendant of c, or kept as an output, exist once
//    and are live throughout I (H).
//  * c's inputs are live when it runs: each live at t, or made in I by a run of its
//    producer whose inputs are live then or made in turn. A buffer made before t that
//    no recomputation makes again, or whose producer cannot run in I (c and its
//    descendants, the set X below), cannot be made there. So the live set at t holds a
//    vertex cut between c's inputs and what cannot be made (LEMON's max flow over the
//    buffers, their sizes the capacities; what is surely live free).
//  * Take the last run in I of any op of a set X: it holds its inputs, outputs and
//    workspace, H, and a cut over c's inputs made by ops outside X. If every op of X
//    peaks at P or more so, no op of X runs in I. X starts as every op whose runs could
//    make c's inputs, or what those are made from, H aside (v too: a run of v in I may
//    make its outputs again), and loses each op that could be the last run below P,
//    until none does.
//  * At t: v's footprint, the buffers the recompute floor keeps at v, and the cut over
//    what only ops outside X make in I. At P or more, the plan below P does not exist.
//
// Two readers at once. Where c alone shows too little, a plan may let another reader
// run first and free what c's makers would wait beside. At vit_b_16's last GELU
// backward (batch 32) the floor is 251.8 MB; the weight gradient after it needs the
// layer's normalised residual (19.4 MB), made again only by some layer's MLP (155 MB
// live), while the residual join may take the final LayerNorm's gradient on towards
// the next layer's GELU backward, y. The proof splits the plans on which of y and c
// runs first:
//  * y after c: y and its descendants cannot run in I either, and at any time s in I
//    y's inputs are live or made after s by runs that may make them (all but the one
//    run of a buffer no recomputation makes again, made by t); that cut counts too,
//    over the buffers the cut for c's inputs did not reach, so no byte counts twice.
//  * y first: at y's first run, its footprint, the buffers no recomputation makes
//    again made by then and read by y's descendants, c or c's descendants, and a cut
//    over all those ops' inputs, as each of them runs later.
// With both at P or more, no plan peaks below P: vit_b_16's floor rises to 271.1 MB,
// the arena budget mode fits. y is tried among v's descendants that are neither
// ancestors nor descendants of c, the two largest footprints that with c's inputs
// reach P.
//
// Nothing assumes an order, how often an op runs, or which copy a run reads: only that
// each run has its inputs live and its outputs allocated, and that a buffer no
// recomputation makes again is made once. With the buffers budget mode's search never
// makes again in place of those, the same proof raises the searched floor.
//
// Cost: anchors (v, c) are tried only where v's floor and c's other inputs reach P,
// c among the eight descendants of v nearest it (of 64) whose inputs v does not hold; per
// anchor, O(ops + uses) to set up, then passes over X, a max flow per op of X that could
// reach P (two where y's inputs wait too); an anchor short of P tries two splits, each
// the proof again and one more max flow. One unit of work per flow. Anytime: out of
// budget, it proves nothing more.
#pragma once

#include <cstdint>
#include <vector>

#include "olla/core/budget.h"
#include "olla/graph/graph.h"
#include "olla/remat/recompute_floor.h"

namespace olla {

// The floors (recompute_floor.h) raised by the proof (half the budget for the floor of
// every plan), the searched one never below the other: first tried at `ceiling` + 1
// (where the proof reaches it, every plan peaks above `ceiling`, and the floors say
// so), then below it as far as a bisection reaches (to the byte).
RecomputeFloor RaiseRecomputeFloors(const Graph& graph, RecomputeFloor floors,
                                    int64_t ceiling, const Budget& budget);

}  // namespace olla
