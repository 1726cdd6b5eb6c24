// Rematerialize: which activations (and gradients) to drop and make again before their
// late uses, so that an order peaks at most `target_bytes`, with the least
// added compute (remat/cost.h) this search finds (docs/budget.md).
//
// The search keeps the order it is given (the scheduler's, the best there is without
// recomputation) and runs each recomputation just before the first op that reads its
// copies, so it measures exactly the peak of each choice. A dropped buffer (made by an
// op that recompute_rules.h allows, with late readers: an activation read again in the
// backward pass, or a gradient read again where a residual connection joins) gets its
// copies from one run of its producer for all its late readers, from one for each
// group its cuts part (the readers needed up to a step of the order, those up to the
// next cut, and so on: checkpoints of checkpoints, a layer's input made again for each
// later layer's backward pass), or from one run for each place a reader first needs
// it; a run whose inputs were dropped reads their copies (chains). A buffer dropped with
// one copy may give each run that reads it a chain of its own (a residual add's input
// made for the MLP's run and again for the add's, not held across the MLP).
//
// The search looks at the activations alone first (recomputable.h's reaches), then
// goes on over the whole step from their best with the work left; below the floor of
// the activations' plans (recompute_floor.h) their search aims at that floor and stops
// there. Over the whole step from nothing dropped, Checkmate's ResNet50 stalled 10 %
// above where the activations' search reaches. Short of the target over the whole
// step, a descent from every droppable buffer dropped with a copy for each reader
// follows too.
//
// Where blocks repeat (repeated_blocks.h: a transformer's layers), a greedy descent
// with every move made in all the blocks that repeat the one it is in comes first, so
// that a plan comes within the rounds of one block whatever the depth. When it stops
// short of the target, a descent from a checkpoint at every block follows (every
// buffer that may be made again dropped, cut where each block's backward pass ends:
// O(L²) runs), where a transformer's floor lies. Then the descent block by block, the
// best going on.
//
// A greedy descent: a round looks at the step where the order peaks, takes the
// buffers live there that could be dropped and not used there (alone, with their
// chains, and with the copies their chains read cut apart) and the copies live there
// (cut at the step, besides their other cuts, or made for each reader instead), ranks
// them by the bytes they would free there per unit of added compute, measures the first
// few (and then on, until one helps), and keeps the one that removes the most bytes above
// the target, or the aim below it (summed over all steps), per unit of compute. When the
// target is reached, a pruning pass gives back what the target no longer needs, dearest
// op first. A plan becomes the result only once the caller's layout accepts it
// (`lays_out`: the arena's placement, which need not reach the peak); the search
// aims below each plan refused while none is accepted. Then a large-neighbourhood
// search: restarts from a neighbourhood of the current point (a few drops given back,
// one added), a descent with noise on the scores, pruning; better results replace the
// best, until `stall_rounds` restarts in a row find none, the added cost meets
// `cost_floor`, or the budget ends.
//
// Each measurement expands the graph and computes a timeline, O(ops + uses), one unit
// of work; the search returns its best so far when the budget ends. Deterministic for
// a work limit (the restarts draw from a fixed seed).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "olla/core/budget.h"
#include "olla/graph/graph.h"
#include "olla/graph/order.h"
#include "olla/plan/plan.h"

namespace olla {

struct RematOptions {
  int64_t target_bytes = 0;  // The peak live bytes to reach.
  // Short of the target, a move that lowers no peak is kept when it lowers the bytes
  // above this, summed over the steps (at most the target; 0: the target). The
  // recompute floor: what lowers memory anywhere the floor allows leads on, where
  // the bytes above the target alone leave a search aiming higher on a plateau.
  int64_t aim_bytes = 0;
  int32_t measured_per_round = 12;  // Then on only until one helps.
  // The large-neighbourhood search ends after this many restarts in a row that find
  // nothing better (or with the budget).
  int32_t stall_rounds = 1000;
  // A proven lower bound on the added cost (added_cost_bound.h): a result that reaches
  // the target at it is optimal, and the search stops there.
  int64_t cost_floor = 0;
  // Decide for the blocks that repeat one another (repeated_blocks.h) together before
  // block by block.
  bool tie_repeated_blocks = true;
  // Whether the arena can lay out a plan that reaches the target (the expanded graph
  // and its order) within it: the caller's placement. Asked once of each plan that
  // would become the result; a refused one is none, and until one is accepted the
  // search aims below the peak of each it refused. Unset: every plan is laid out at
  // its peak.
  std::function<bool(const Graph& expanded, const Order& order)> lays_out;
};

struct RematResult {
  std::vector<Recomputation> recompute;  // File ids assigned (AssignRecomputeIds).
  Order order;                           // Over ExpandGraph(graph, recompute).
  int64_t peak_bytes = 0;                // Of that order.
  int64_t added_cost = 0;                // The recomputed ops' OpCost, summed.
  bool reached = false;                  // peak_bytes <= target_bytes.
  int32_t measurements = 0;
  int32_t measurements_to_reach = 0;  // Until a plan first reached the target; 0: none.
  Budget::Limit stopped_by = Budget::Limit::kNone;
};

// Some buffer could be dropped and made again (recomputable.h: an activation read again
// in the backward pass, a gradient read again far off): without one, recomputing
// lowers no peak.
bool HasRecomputableBuffer(const Graph& graph);

// `order` must be valid for `graph`. Without any recomputation that helps, the result
// has none and the order's own peak.
RematResult Rematerialize(const Graph& graph, const Order& order,
                          const RematOptions& options, const Budget& budget);

}  // namespace olla
