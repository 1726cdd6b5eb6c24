// vit_b_16's last layer in miniature, for the proof that splits the plans on which of
// two waiting readers runs first (remat/recompute_floor_proof.h).
#pragma once

#include <cstdint>
#include <initializer_list>

#include "graph_builder.h"

namespace olla::testing {

// An MLP's backward (a GELU's backward, op 8, then its weight gradient, op 9, which
// reads the MLP's normalised input) beside the residual join (op 12), which reads the
// gradient from above (drawn at random, as the final LayerNorm's gradient is kept by
// its weight's in-place update) and leads to the layer below's heavy backward op (op
// 13). Two readers wait at once: one alone lets the other run first. `size()` gives
// each buffer's size, in the order made.
template <typename Size>
Graph TwoReadersAtOnce(Size&& size) {
  GraphBuilder b;
  auto op = [&](std::initializer_list<BufferId> makes,
                std::initializer_list<BufferId> reads, Phase phase = Phase::kForward) {
    b.Op(makes, reads);
    b.ops().back().phase = phase;
    b.ops().back().type = "aten::mul.Tensor";
  };
  const BufferId x0 = b.Buffer(size(), "x0");
  const BufferId h0 = b.Buffer(size(), "h0");  // The layer below's MLP activation.
  op({h0}, {x0});
  const BufferId x1 = b.Buffer(size(), "x1");
  op({x1}, {h0, x0});
  const BufferId normed = b.Buffer(size(), "normed");
  op({normed}, {x1});
  const BufferId h1 = b.Buffer(size(), "h1");
  op({h1}, {normed});
  const BufferId g1 = b.Buffer(size(), "g1");
  op({g1}, {h1});
  const BufferId out = b.Buffer(size(), "out");
  op({out}, {g1, x1});
  const BufferId from_above = b.Buffer(size(), "from_above");
  op({from_above}, {out}, Phase::kBackward);
  b.ops().back().random = true;
  const BufferId dg1 = b.Buffer(size(), "dg1");
  op({dg1}, {from_above}, Phase::kBackward);
  const BufferId dh1 = b.Buffer(size(), "dh1");
  op({dh1}, {dg1, h1}, Phase::kBackward);
  op({b.Output(size(), "weight_grad")}, {dh1, normed}, Phase::kBackward);
  const BufferId dnormed = b.Buffer(size(), "dnormed");
  op({dnormed}, {dh1}, Phase::kBackward);
  const BufferId dx1 = b.Buffer(size(), "dx1");
  op({dx1}, {dnormed, x1}, Phase::kBackward);
  b.ops().back().random = true;
  const BufferId joined = b.Buffer(size(), "joined");
  op({joined}, {from_above, dx1}, Phase::kBackward);
  const BufferId dh0 = b.Buffer(size(), "dh0");
  op({dh0}, {joined, h0}, Phase::kBackward);
  op({b.Output(size(), "input_grad")}, {dh0, x0}, Phase::kBackward);
  return b.Build();
}

// Every buffer 1 byte but the activation the layer below's backward reads (2 bytes).
inline Graph TwoReadersAtOnce() {
  int made = 0;
  return TwoReadersAtOnce([&] { return ++made == 2 ? 2 : 1; });
}

}  // namespace olla::testing
