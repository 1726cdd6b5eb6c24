// What olla never recomputes, and why (docs/budget.md).
//
// Running an op a second time gives its outputs again only when the op is a pure
// function of inputs that still hold what they held the first time:
// - an op that draws random numbers (dropout) would draw others: refused, whether the
//   graph marks it `random` or its operator's name says so (dropout, bernoulli, rand*,
//   normal, uniform, multinomial, ...), so graphs without the mark stay safe;
// - an op that writes in place changes its inputs: refused, whether the graph lists its
//   `writes` or its operator's name ends in an underscore (relu_, add_.Tensor) or names
//   a batch norm (which updates its running statistics);
// - an op whose output something writes in place (an in-place op's victim): the buffer
//   holds the writer's result, not the op's, so a copy of the op's output is not it;
//   what an op overwrites is what the graph's `writes` lists, or, where it lists
//   nothing for the op, every use but its outputs when its name says in place;
// - an op whose output an optimizer's in-place update reads (a weight's gradient): not
//   for correctness, but because it lives a few steps where updates run as soon as
//   ready, and counting it freeable only lowers the floors;
// - an op that allocates nothing (a view) has nothing to recompute.
// The inputs' side (none overwritten before the copies are read) is a precedence the
// expanded graph enforces (plan/expand.h).
#pragma once

#include <string>

#include "olla/core/ids.h"
#include "olla/graph/graph.h"

namespace olla {

// The operator's name without namespace and overload: "relu_" for "aten::relu_.Tensor".
std::string_view BaseOperatorName(std::string_view type);

bool DrawsRandomNumbers(const Op& op);
// Writes in place: some of its uses (all of those it does not allocate, when only its
// name says so).
bool WritesInPlace(const Op& op);
// A view: it allocates and writes nothing (its outputs alias its inputs), so it costs
// nothing and keeps alive only what it reads.
bool IsView(const Op& op);
// Whether `op` may overwrite buffer `buffer`, which it uses: one its `writes` lists,
// or, where the graph lists none for it, any but its outputs when its name says it
// works in place (a trailing underscore).
bool MayOverwrite(const Op& op, BufferId buffer);

// Why the graph's op `op` must not run twice ("draws random numbers"), or "" when it
// may. Cost: O(uses of its outputs).
std::string RecomputeRefusal(const Graph& graph, OpId op);

}  // namespace olla
