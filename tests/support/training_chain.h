// A training step as a chain: `layers` forward ops, each reading the previous
// activation and a weight, a loss, and the backward ops in reverse, each reading the
// gradient after it and the activation its layer read (saved for the backward). Every
// activation is live at the loss: the eager peak is all of them, and recomputation can
// lower it.
#pragma once

#include <string>
#include <vector>

#include "graph_builder.h"

namespace olla::testing {

struct TrainingChain {
  GraphBuilder builder;
  std::vector<BufferId> activations;  // activations[0] is the input batch.
  std::vector<OpId> forward;
  std::vector<OpId> backward;  // backward[i] is layer i's.
};

inline TrainingChain MakeTrainingChain(int layers, int64_t bytes) {
  TrainingChain chain;
  GraphBuilder& b = chain.builder;
  chain.activations.push_back(b.Buffer(bytes, "input"));
  for (int i = 0; i < layers; ++i) {
    const BufferId weight = b.Persistent(64);
    const BufferId out = b.Buffer(bytes, "a" + std::to_string(i + 1));
    chain.forward.push_back(b.Op({out}, {chain.activations.back(), weight}));
    b.ops().back().type = "aten::mul.Tensor";
    chain.activations.push_back(out);
  }
  BufferId grad = b.Buffer(bytes, "loss_grad");
  b.Op({grad}, {chain.activations.back()});
  b.ops().back().phase = Phase::kBackward;
  chain.backward.resize(static_cast<size_t>(layers));
  for (int i = layers - 1; i >= 0; --i) {
    const BufferId next = i == 0 ? b.Output(bytes, "input_grad") : b.Buffer(bytes);
    chain.backward[static_cast<size_t>(i)] =
        b.Op({next}, {grad, chain.activations[static_cast<size_t>(i)]});
    b.ops().back().phase = Phase::kBackward;
    b.ops().back().type = "aten::mul.Tensor";
    grad = next;
  }
  return chain;
}

// The chain with a residual connection in its backward pass: one more backward op reads
// the loss's gradient again after the input's gradient is made, so that gradient is
// live across every backward op unless the loss's backward op runs again for that
// reader. With `returned`, the loss's gradient is also an output of the step, which
// budget mode's search never makes again (recomputable.h).
inline TrainingChain MakeTrainingChainReadingTheLossGradientLast(int layers,
                                                                 int64_t bytes,
                                                                 bool returned = false) {
  TrainingChain chain = MakeTrainingChain(layers, bytes);
  GraphBuilder& b = chain.builder;
  const OpId input_backward = chain.backward.front();
  const BufferId input_grad = b.ops()[input_backward.index()].allocates.front();
  const BufferId loss_grad = b.ops()[chain.backward.back().index()].uses.front();
  b.buffers()[loss_grad.index()].output = returned;
  b.Op({b.Output(bytes, "residual_grad")}, {loss_grad, input_grad});
  b.ops().back().phase = Phase::kBackward;
  b.ops().back().type = "aten::add.Tensor";
  return chain;
}

}  // namespace olla::testing
