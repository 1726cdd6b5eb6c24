// Reachability under precedence: does a path lead from op a to op b?
//
// Ops are stored in eager (topological) order, so a path can only go from a lower id to
// a higher one; every search below uses that to prune.
// - Reachability answers point queries. Up to kMaxMatrixOps ops it holds the full
//   transitive closure as bitsets (n^2/8 bytes: 32 MiB at 16,384 ops), built in
//   O(edges * ops / 64). Larger graphs keep no matrix: each query runs a depth-first
//   search that never leaves the id range [a, b], O(ops + edges) at worst.
// - SweepReachBlock answers bulk queries for graphs of any size: for a block of up to
//   64 consecutive target ops, one backward and one forward sweep, O(ops + edges) and
//   O(ops) memory, give every op's relation to all targets at once. Analyses that need
//   all pairs (the forced-live lower bound) walk the ops in blocks: O(ops/64 * (ops +
//   edges)) time without quadratic memory.
#pragma once

#include <cstdint>
#include <vector>

#include "olla/graph/graph.h"

namespace olla {

class Reachability {
 public:
  static constexpr int32_t kMaxMatrixOps = 16384;

  // Holds the closure as a matrix when the graph has at most `max_matrix_ops` ops.
  explicit Reachability(const Graph& graph, int32_t max_matrix_ops = kMaxMatrixOps);

  // True when `to` is `from` or a descendant of it. Not thread-safe above
  // kMaxMatrixOps (the search reuses scratch space).
  bool Reaches(OpId from, OpId to) const;
  bool has_matrix() const { return words_per_row_ > 0; }

 private:
  const Graph* graph_;
  size_t words_per_row_ = 0;
  std::vector<uint64_t> descendants_;  // Row per op: bit j set when op reaches op j.
  mutable std::vector<uint32_t> visited_epoch_;
  mutable std::vector<OpId> stack_;
  mutable uint32_t epoch_ = 0;
};

// Relations of every op to the targets [first, first + count), count <= 64.
struct ReachBlock {
  int32_t first = 0;
  int32_t count = 0;
  // Bit i of reaches_target[x]: x is first + i or one of its ancestors.
  std::vector<uint64_t> reaches_target;
  // Bit i of reached_from_target[x]: x is first + i or one of its descendants.
  std::vector<uint64_t> reached_from_target;

  uint64_t SelfBit(OpId op) const {
    const int32_t i = op.value() - first;
    return (i >= 0 && i < count) ? uint64_t{1} << i : 0;
  }
};

// Fills `block` for targets [first, first + count); reuses its vectors' storage.
void SweepReachBlock(const Graph& graph, int32_t first, int32_t count, ReachBlock& block);

}  // namespace olla
