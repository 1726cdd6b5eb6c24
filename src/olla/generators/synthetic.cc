#include "olla/generators/synthetic.h"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "olla/generators/synthetic_builder.h"

namespace olla {

using synthetic::Builder;
using synthetic::Random;

Graph TrainingLikeGraph(const TrainingLikeOptions& options) {
  OLLA_CHECK(options.layers >= 1, "a training-like graph needs a layer");
  Random random(options.seed);
  Builder b;
  const auto layers = static_cast<size_t>(options.layers);
  auto activation_size = [&] {
    // Multiples of 512 bytes, as real tensors mostly are.
    return random.Between(options.min_activation_bytes / 512,
                          options.max_activation_bytes / 512) *
           512;
  };
  const BufferId batch =
      b.AddBuffer("batch", activation_size(), BufferKind::kInput, true);
  std::vector<BufferId> weights(layers), activations(layers + 1);
  std::vector<std::vector<size_t>> skips(layers +
                                         1);  // skips[i]: earlier layers i reads.
  activations[0] = batch;
  for (size_t i = 0; i < layers; ++i) {
    weights[i] = b.AddBuffer(fmt::format("w{}", i + 1), random.Between(1, 4096) * 512,
                             BufferKind::kParameter, true);
  }
  std::vector<OpId> forward(layers + 1);
  for (size_t i = 1; i <= layers; ++i) {
    activations[i] =
        b.AddBuffer(fmt::format("a{}", i), activation_size(), BufferKind::kActivation);
    std::vector<BufferId> uses = {activations[i - 1], weights[i - 1]};
    if (i >= 3 && random.Chance(options.skip_probability)) {
      const auto reach = static_cast<size_t>(random.Between(
          2, std::min<int64_t>(options.max_skip, static_cast<int64_t>(i - 1))));
      skips[i].push_back(i - reach);
      uses.push_back(activations[i - reach]);
    }
    const int64_t workspace = random.Chance(0.3) ? random.Between(1, 256) * 512 : 0;
    forward[i] = b.AddOp(fmt::format("layer{}", i), "forward", Phase::kForward,
                         {activations[i]}, uses, workspace);
  }
  const BufferId loss = b.AddBuffer("loss", 512, BufferKind::kActivation);
  b.buffers[loss.index()].output = true;
  std::vector<BufferId> grads(layers + 1);  // grads[i]: gradient of activation i.
  grads[layers] =
      b.AddBuffer(fmt::format("grad_a{}", layers),
                  b.buffers[activations[layers].index()].size, BufferKind::kGradient);
  b.AddOp("loss", "loss", Phase::kForward, {loss, grads[layers]}, {activations[layers]});

  // Skip gradients flow into an earlier activation's gradient: the op that produces that
  // gradient also reads them.
  std::vector<std::vector<BufferId>> pending_skip_grads(layers + 1);
  std::vector<OpId> backward(layers + 1);
  std::vector<BufferId> weight_grads(layers + 1);
  for (size_t i = layers; i >= 1; --i) {
    std::vector<BufferId> allocates;
    weight_grads[i] =
        b.AddBuffer(fmt::format("grad_w{}", i), b.buffers[weights[i - 1].index()].size,
                    BufferKind::kGradient);
    allocates.push_back(weight_grads[i]);
    if (i > 1) {
      grads[i - 1] =
          b.AddBuffer(fmt::format("grad_a{}", i - 1),
                      b.buffers[activations[i - 1].index()].size, BufferKind::kGradient);
      allocates.push_back(grads[i - 1]);
    }
    for (size_t j : skips[i]) {
      const BufferId skip_grad =
          b.AddBuffer(fmt::format("grad_skip{}_{}", i, j),
                      b.buffers[activations[j].index()].size, BufferKind::kGradient);
      allocates.push_back(skip_grad);
      pending_skip_grads[j].push_back(skip_grad);
    }
    std::vector<BufferId> uses = {grads[i], activations[i - 1], weights[i - 1]};
    for (size_t j : skips[i]) uses.push_back(activations[j]);
    for (BufferId g : pending_skip_grads[i]) uses.push_back(g);
    backward[i] = b.AddOp(fmt::format("layer{}_backward", i), "backward",
                          Phase::kBackward, allocates, uses);
  }
  // SGD writes each weight in place: every reader of the old weight runs first. The
  // forward reader precedes the backward one already, so one edge suffices.
  for (size_t i = 1; i <= layers; ++i) {
    const OpId update = b.AddOp(fmt::format("sgd{}", i), "sgd_", Phase::kOptimizer, {},
                                {weight_grads[i], weights[i - 1]});
    b.edges.push_back({backward[i], update});
  }
  return b.Build(
      fmt::format("training_like_{}_layers_seed_{}", options.layers, options.seed));
}

Graph RandomDag(const RandomDagOptions& options) {
  OLLA_CHECK(options.ops >= 1, "a random DAG needs an op");
  Random random(options.seed);
  Builder b;
  std::vector<BufferId>
      available;  // Buffers an op may use: outputs of earlier ops, inputs.
  for (int32_t o = 0; o < options.ops; ++o) {
    std::vector<BufferId> uses;
    const int64_t inputs = random.Between(o == 0 ? 1 : 0, options.max_inputs);
    for (int64_t k = 0; k < inputs; ++k) {
      if (available.empty() || random.Chance(options.input_probability)) {
        const BufferId input =
            b.AddBuffer(fmt::format("in{}", b.buffers.size()),
                        random.Between(0, options.max_size), BufferKind::kInput);
        available.push_back(input);
        uses.push_back(input);
      } else {
        uses.push_back(available[static_cast<size_t>(
            random.Between(0, static_cast<int64_t>(available.size()) - 1))]);
      }
    }
    std::vector<BufferId> allocates;
    const int64_t outputs = random.Between(1, options.max_outputs);
    for (int64_t k = 0; k < outputs; ++k) {
      const BufferId out =
          b.AddBuffer(fmt::format("b{}", b.buffers.size()),
                      random.Between(0, options.max_size), BufferKind::kActivation);
      b.buffers[out.index()].output = random.Chance(options.output_probability);
      allocates.push_back(out);
      available.push_back(out);
    }
    const int64_t workspace = random.Chance(options.workspace_probability)
                                  ? random.Between(1, options.max_size)
                                  : 0;
    b.AddOp(fmt::format("v{}", o), "random", Phase::kForward, allocates, uses, workspace);
  }
  for (int32_t before = 0; before < options.ops; ++before) {
    for (int32_t after = before + 1; after < options.ops; ++after) {
      if (random.Chance(options.edge_probability))
        b.edges.push_back({OpId(before), OpId(after)});
    }
  }
  return b.Build(fmt::format("random_dag_{}_ops_seed_{}", options.ops, options.seed));
}

}  // namespace olla
