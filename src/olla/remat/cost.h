// The compute an op costs: what rematerialization minimises and what reports give as
// "added compute" (docs/budget.md).
//
// Where the graph gives every op its measured cost (Op::cost, seconds: olla.torch
// times each op, a profiler's graph carries its own), one unit is one nanosecond of
// it. Otherwise the cost is estimated from shapes: one unit is one floating-point
// operation; moving one byte costs kUnitsPerByte units,
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

// Where the costs come from, as reports say it: "measured" or "estimated from shapes".
const char* CostSource(const Graph& graph);

}  // namespace olla
