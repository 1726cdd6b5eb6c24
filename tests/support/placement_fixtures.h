// Placement problems for tests: single buffers in one line, and random problems with
// small times and sizes so that buffers overlap often and brute force stays feasible.
#pragma once

#include <cstdint>
#include <random>
#include <string>

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

}  // namespace olla::testing
