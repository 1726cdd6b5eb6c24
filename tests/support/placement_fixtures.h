// Placement problems for tests: single buffers in one line, random problems with small
// times and sizes so that buffers overlap often and brute force stays feasible, and
// random traces shaped like a training step.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "olla/placement/problem.h"

namespace olla::testing {

inline PlacementBuffer TestBuffer(std::string id, int64_t start, int64_t end,
                                  int64_t size) {
  PlacementBuffer b;
  b.id = std::move(id);
  b.start = start;
  b.end = end;
  b.size = size;
  return b;
}

struct RandomPlacementOptions {
  int32_t buffers = 8;
  uint64_t seed = 1;
  int64_t horizon = 12;  // Lifetimes lie in [0, horizon).
  int64_t max_size = 8;
  int64_t max_alignment = 1;
  double fixed_probability =
      0.0;  // Chance a buffer gets a fixed offset (stacked, valid).
};

inline PlacementProblem RandomPlacementProblem(const RandomPlacementOptions& options) {
  std::mt19937_64 random(options.seed);
  auto between = [&](int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(random() % static_cast<uint64_t>(hi - lo + 1));
  };
  PlacementProblem problem;
  int64_t fixed_top = 0;  // Fixed buffers are stacked so they never collide.
  for (int32_t i = 0; i < options.buffers; ++i) {
    PlacementBuffer b;
    b.id = "b" + std::to_string(i);
    b.start = between(0, options.horizon - 2);
    b.end = between(b.start + 1, options.horizon);
    b.size = between(0, options.max_size);
    b.alignment = between(1, options.max_alignment);
    if (static_cast<double>(random() % 1000) < 1000 * options.fixed_probability) {
      b.fixed_offset = AlignUp(fixed_top, b.alignment);
      fixed_top = *b.fixed_offset + b.size;
    }
    problem.buffers.push_back(b);
  }
  return problem;
}

// A trace shaped like one training step of `layers` layers, two time steps per layer:
// forward activations kept until their layer's backward step (nested lifetimes), short
// temporaries in both passes, and per layer a state made in the forward pass and a
// gradient made in the backward pass, both kept to the end (the small long-lived
// buffers that make greedy placement leave gaps, as in MindSpore's pangu_2.6B trace).
// Sizes are powers of two from 16 to 2048, some multiplied.
inline PlacementProblem TrainingLikePlacementProblem(int32_t layers, uint64_t seed) {
  std::mt19937_64 random(seed);
  auto between = [&](int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(random() % static_cast<uint64_t>(hi - lo + 1));
  };
  auto size = [&] { return int64_t{16} << between(0, 7); };
  const int64_t end = 4 * int64_t{layers} + 3;
  PlacementProblem problem;
  auto add = [&](int64_t start, int64_t stop, int64_t bytes) {
    PlacementBuffer b;
    b.id = "b" + std::to_string(problem.buffers.size());
    b.start = start;
    b.end = std::min(stop, end);
    b.size = bytes;
    problem.buffers.push_back(b);
  };
  std::vector<std::pair<int64_t, int64_t>> activations;  // (start, size) per layer.
  int64_t t = 0;
  for (int32_t layer = 0; layer < layers; ++layer, t += 2) {
    activations.emplace_back(t, size() * between(1, 3));
    add(t, end, size() / 4);  // State.
    for (int64_t k = between(1, 3); k > 0; --k)
      add(t, t + between(1, 4), size() * between(1, 4));
  }
  for (int32_t layer = layers - 1; layer >= 0; --layer, t += 2) {
    add(activations[static_cast<size_t>(layer)].first, t + 1,
        activations[static_cast<size_t>(layer)].second);
    for (int64_t k = between(1, 3); k > 0; --k)
      add(t, t + between(1, 4), size() * between(1, 4));
    add(t, end, size() / 2);  // Gradient.
  }
  return problem;
}

}  // namespace olla::testing
