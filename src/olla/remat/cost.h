// The compute an op costs, estimated from its shapes: what rematerialization minimises
// and what reports give as "added compute" (docs/budget.md).
//
// One unit is one floating-point operation; moving one byte costs kUnitsPerByte units,
// and an op costs the larger of the two (a roofline: matmuls and convolutions are bound
// by arithmetic, pointwise ops by memory traffic):
// - convolution: 2 * output elements * (weight elements / output channels);
// - mm, addmm, bmm, baddbmm, matmul, linear: 2 * output elements * K, K the inner
//   dimension, read from the first matrix operand's last dimension;
// - every op: the bytes it reads and allocates, times kUnitsPerByte.
// Views (ops that allocate nothing) cost nothing. Shapes come from the graph's buffers;
// a buffer without a shape counts its bytes only. The ratio of the two sides only
// decides which ops are cheap to run again; reports give costs as fractions of the
// whole step's.
#pragma once

#include <cstdint>

#include "olla/core/ids.h"
#include "olla/graph/graph.h"

namespace olla {

inline constexpr int64_t kUnitsPerByte = 16;

// Never negative; saturates at INT64_MAX / 4 so that sums of a graph's costs fit.
int64_t OpCost(const Graph& graph, OpId op);

// The sum over all ops of the graph: one training step.
int64_t StepCost(const Graph& graph);

}  // namespace olla
