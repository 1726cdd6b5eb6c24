// Case splits: the min-cut bound at an op raised by branching on the order of two ops.
//
// Every order runs an op u either before or after an op w unrelated to it. Assuming
// one of the two, the fewest bytes live when w runs (and when u runs) can only rise,
// and the smaller of the two cases' values is a bound for every order. One split
// closes efficientnet_b0's training step at batch 1 (the classifier's `mm_1` before or
// after the peak op: a 9,120-byte gap), five close googlenet's (its three classifier
// heads' matmuls, about 12 KB each) and one transformer's.
//
// The search is a dive. At w (an op where the incumbent order peaks) every unrelated u
// is tried, nearest to w in the incumbent first, at four cuts each (w and u in each
// case); the split whose weaker case is strongest is taken, its stronger case becomes a
// closed leaf, and the dive goes on in the weaker case with the split assumed. The
// bound is the smallest value of a closed leaf or the case the dive is in, so it is
// valid wherever the budget ends the dive (one work unit per cut).
//
// Cost per split: up to 4 x (ops unrelated to w) min cuts, each O(ops + edges + uses)
// plus its flow: about 0.3 s on a 1,000-op training step.
#pragma once

#include <cstdint>

#include "olla/core/budget.h"
#include "olla/graph/graph.h"
#include "olla/graph/order.h"

namespace olla {

struct CaseSplitResult {
  int64_t bound_bytes = 0;  // Never below the bound passed in.
  int32_t splits = 0;       // The splits on the dive that proved bound_bytes.
  int32_t cuts = 0;         // Min cuts computed, over every dive.
};

// Raises `bound` with dives at each op where `incumbent` peaks at or above `target`
// (its peak: the bound then proves it optimal), until the bound reaches `target` or
// the budget ends.
CaseSplitResult CaseSplitBound(const Graph& graph, const Order& incumbent, int64_t bound,
                               int64_t target, const Budget& budget);

}  // namespace olla
