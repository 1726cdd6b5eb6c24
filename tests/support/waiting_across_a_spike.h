// A training step with vit_b_16's peak in miniature, for the proofs that raise a floor
// by what later readers need (remat/order_floor_proof.h, remat/recompute_floor_proof.h).
#pragma once

#include "graph_builder.h"

namespace olla::testing {

// vit_b_16's peak in miniature. An activation `a` (1 byte), made from `h` (6 bytes,
// which nothing reads after `a` is made), waits across a gradient spike for a backward
// op two steps later. The spike's op reads a mask (4 bytes) and makes a gradient `s`
// (6 bytes) that both later steps read; both are drawn at random, so no run makes
// them again. The order's floor takes `a` off the spike's step (12 bytes), but a plan
// that drops it must make it again before its reader, from `h` made again or held,
// while `s` waits: 14 bytes. Holding `a` (13 bytes, the eager order's peak) is the
// least any plan peaks at, on the order or in any other: the recompute floor (12 bytes,
// at the spike) misses `a` too.
inline Graph WaitingAcrossASpike() {
  GraphBuilder b;
  const BufferId input = b.Buffer(1, "input");
  const BufferId h = b.Buffer(6, "h");
  b.Op({h}, {input});
  const BufferId a = b.Buffer(1, "a");
  b.Op({a}, {h});
  const BufferId out = b.Buffer(1, "out");
  b.Op({out}, {a});
  const BufferId mask = b.Buffer(4, "mask");
  b.Op({mask}, {out});
  b.ops().back().random = true;
  auto backward = [&](std::initializer_list<BufferId> reads, int64_t size) {
    const BufferId next = b.Buffer(size);
    b.Op({next}, reads);
    b.ops().back().phase = Phase::kBackward;
    return next;
  };
  const BufferId loss_grad = backward({out}, 1);
  const BufferId spike = backward({loss_grad, mask}, 6);
  b.ops().back().random = true;
  const BufferId grad = backward({spike}, 1);
  const BufferId grad_a = backward({grad, spike, a}, 1);
  b.Op({b.Output(1, "input_grad")}, {grad_a, input});
  b.ops().back().phase = Phase::kBackward;
  for (olla::Op& op : b.ops()) op.type = "aten::mul.Tensor";
  return b.Build();
}

}  // namespace olla::testing
