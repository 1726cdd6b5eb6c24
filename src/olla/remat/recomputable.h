// Which buffers budget mode's search may make again and drop (docs/budget.md): the one
// definition the search and the bound on its added compute share.
#pragma once

#include <vector>

#include "olla/graph/graph.h"

namespace olla {

struct RecomputableBuffers {
  // Made by an op that recompute_rules.h lets run again (within the reach), neither
  // persistent nor an output of the step: a run of its producer can make a copy of it.
  std::vector<char> copyable;
  // Copyable, not empty, and with late readers: dropping it after its early readers
  // frees its bytes until its copy is made for the late ones.
  std::vector<char> droppable;
  // The readers a copy may serve, in eager order: a forward op's output's backward
  // readers (the original serves the forward pass); the readers after the first of
  // any other op's output (a gradient a residual connection reads again at the join,
  // an optimizer's temporary: the original serves the first).
  std::vector<std::vector<OpId>> late_users;
};

// How far the search reaches: the activations alone (the outputs of forward ops), or
// every op's output but the step's own (a gradient too: its backward op runs again).
// Budget mode searches the first, then, short of its target, the second
// (remat_search.h): on Checkmate's ResNet50 the search over the whole step from
// nothing dropped stalls 10 % above where the one over the activations stops.
enum class Reach { kActivations, kWholeStep };

RecomputableBuffers FindRecomputableBuffers(const Graph& graph,
                                            Reach reach = Reach::kWholeStep);

}  // namespace olla
