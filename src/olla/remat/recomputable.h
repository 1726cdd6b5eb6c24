// Which buffers budget mode's search may make again and drop (docs/budget.md): the one
// definition the search and the bound on its added compute share.
#pragma once

#include <vector>

#include "olla/graph/graph.h"

namespace olla {

struct RecomputableBuffers {
  // Made by a forward op that recompute_rules.h lets run again, neither persistent nor
  // an output of the step: a run of its producer can make a copy of it.
  std::vector<char> copyable;
  // Copyable, not empty, and read again in the backward pass: dropping it after its
  // forward uses frees its bytes until its copy is made for the backward readers.
  std::vector<char> droppable;
  // Its readers in the backward pass, in eager order.
  std::vector<std::vector<OpId>> backward_users;
};

RecomputableBuffers FindRecomputableBuffers(const Graph& graph);

}  // namespace olla
