// CheckPlan: the one authority on whether a plan is valid for a graph.
//
// It verifies, from the graph and the plan alone and without calling any other
// analysis (so that a bug there cannot hide a bug here):
// - the order is a permutation of all ops that honours every data dependency and
//   explicit precedence edge;
// - when the plan places memory: the alignment is positive; every non-persistent
//   buffer has an offset, no persistent buffer has one; offsets are aligned,
//   non-negative and inside the arena; and no two buffers that are live at the same step
//   share a byte;
// - when the plan places workspace (version 2): every op with workspace has an offset
//   for it, checked like a buffer's, live at the op's step only.
// - with recomputations (plan format version 3): each is one plan/expand.h allows
//   (the op may run twice, what it serves reads its outputs, no input is overwritten
//   before its copies are read), and the order and offsets are those of the expanded
//   graph, checked as above: every recomputed op's inputs are live at its step, every
//   read of a copy comes after it, and copies overlap nothing live with them.
// It recomputes the peak live bytes of the order and the arena the offsets use.
// Cost: O((ops + buffers) log buffers + edges).
#pragma once

#include <cstdint>
#include <string>

#include "olla/graph/graph.h"
#include "olla/plan/plan.h"

namespace olla {

struct PlanCheck {
  bool valid = false;
  std::string error;  // The first problem found, when not valid.
  // Recomputed; peak is set whenever the order is valid, arena when offsets are too.
  int64_t peak_live_bytes = 0;
  int64_t arena_bytes = 0;  // max(offset + size) over placed buffers.
};

PlanCheck CheckPlan(const Graph& graph, const Plan& plan);

}  // namespace olla
