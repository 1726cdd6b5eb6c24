// Synthetic graphs, for tests and benchmarks where no captured model is at hand.
//
// - TrainingLikeGraph: a deep network's training step: a forward chain with skip
//   connections, a loss, a backward pass in reverse, and one in-place SGD update per
//   layer with the precedence edge that the in-place write needs. 3 * layers + 1 ops.
// - RandomDag: small random graphs with random buffer sharing, inputs, outputs,
//   workspace and explicit edges, for brute-force comparisons.
// Both are deterministic functions of their options (the seed included), on every
// platform (synthetic_builder.h). Graphs whose eager order is far from optimal are in
// hard_graphs.h; generated.h names every shape for `olla generate`.
#pragma once

#include <cstdint>

#include "olla/graph/graph.h"

namespace olla {

struct TrainingLikeOptions {
  int32_t layers = 100;
  uint64_t seed = 1;
  double skip_probability = 0.2;  // Chance that a layer also reads an earlier output.
  int32_t max_skip = 4;           // How far back a skip connection reaches.
  int64_t min_activation_bytes = 64 << 10;
  int64_t max_activation_bytes = 8 << 20;
};

Graph TrainingLikeGraph(const TrainingLikeOptions& options);

struct RandomDagOptions {
  int32_t ops = 8;
  uint64_t seed = 1;
  int32_t max_inputs = 3;          // Buffers an op uses, at most.
  int32_t max_outputs = 2;         // Buffers an op allocates, at most (at least 1).
  double input_probability = 0.2;  // Chance that a used buffer is a new graph input.
  double output_probability = 0.1;
  double workspace_probability = 0.2;
  double edge_probability = 0.1;  // Chance of an explicit edge between two ops.
  int64_t max_size = 100;
};

Graph RandomDag(const RandomDagOptions& options);

}  // namespace olla
