// The recompute floor: a lower bound on the peak live bytes of every plan of a graph,
// whatever it recomputes and in whatever order, so that a memory budget below it is
// refuted at once (docs/budget.md), as the bounds of every order refute a budget when
// recomputation is off.
//
// Every op of the graph runs at least once, and each run (the first or a copy) has its
// inputs, outputs and workspace live together: the single-op footprint. Besides them,
// some buffers no recomputation can make again (recompute_rules.h: the outputs of ops
// that draw random numbers or write in place, of ops whose outputs are written in
// place, and the graph's inputs): such a buffer exists once, from its producer to its
// last reader, so it is live at every op between the two in every order, also in a
// graph with copies (a copy of an op reads the same buffers' copies or originals, so a
// run of every op still lies between them). The floor at an op is its footprint plus
// those buffers forced live there (lower_bounds.h's forced-live set, over them only);
// the floor of the graph is the largest over ops. Persistent buffers are excluded, as
// from the arena.
//
// The same argument over a smaller set of plans gives a second floor, never lower: the
// plans budget mode's search makes (recomputable.h), which never make the step's
// outputs again (the loss, a gradient the step returns): there such a buffer exists
// once too, from its producer to its last reader. A budget between the two floors has
// no plan the search can find (it is refuted at once, the search not run), though a
// plan that made an output again at the step's end might fit it.
//
// Cost: twice that of the forced-live set (lower_bounds.h); anytime with a budget: ops
// the budget did not reach count their footprint only, a weaker bound, still a bound.
// recompute_floor_proof.h raises both floors by what a later reader needs.
#pragma once

#include <cstdint>
#include <vector>

#include "olla/core/budget.h"
#include "olla/core/ids.h"
#include "olla/graph/graph.h"
#include "olla/remat/recomputable.h"

namespace olla {

// One floor: its bytes, and the op where they are live, as the proof names it.
struct FloorAt {
  int64_t bytes = 0;
  OpId op;                      // An op attaining it (the lowest id).
  int64_t footprint_bytes = 0;  // At `op`: its inputs, outputs and workspace.
  int64_t kept_bytes = 0;       // At `op`: the buffers no recomputation frees.
  // Raised by what a later reader needs (recompute_floor_proof.h): the bytes besides,
  // held at `op` or made from for `reader`'s inputs, where no run fits to make them.
  int64_t waiting_bytes = 0;
  OpId reader;
  // Where the proof splits the plans on which of an op and the reader runs first: the
  // op (its inputs waiting too where it runs after; as many live at its first run
  // where it runs before).
  OpId later;
};

struct RecomputeFloor {
  FloorAt every_plan;    // Whatever recompute_rules.h lets run again.
  FloorAt searched;      // Only what budget mode's search makes again; >= every_plan.
  bool complete = true;  // Every op's forced-live sets were computed.

  // Whether reports name the searched floor too.
  bool searched_is_higher() const { return searched.bytes > every_plan.bytes; }
};

// Which buffers no recomputation can make again (by index): those without a producer
// and those whose producer recompute_rules.h refuses to run twice.
std::vector<bool> BuffersNoRecomputationFrees(const Graph& graph);
// Those budget mode's search never makes again within `reach`: every buffer
// recomputable.h does not call copyable (persistent ones aside, which no floor counts).
std::vector<bool> BuffersTheSearchNeverFrees(const Graph& graph,
                                             Reach reach = Reach::kWholeStep);

// The floor of the plans the search makes within `reach` (for the activations: where
// the search turns to the whole step, remat_search.h); a weaker one when the budget
// does not reach every op.
FloorAt ComputeSearchedFloor(const Graph& graph, Reach reach, const Budget& budget);

RecomputeFloor ComputeRecomputeFloor(const Graph& graph, const Budget& budget = Budget());

}  // namespace olla
