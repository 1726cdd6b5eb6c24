// Reachability under precedence: does a path lead from op a to op b?
//
// Ops are stored in eager (topological) order, so a path can only go from a lower id to
// a higher one; every search below uses that to prune.
// - Reachability answers point queries. Up to kMaxMatrixOps ops it holds the full
//   transitive closure as bitsets (n^2/8 bytes: 32 MiB at 16,384 ops), built in
//   O(edges * ops / 64). Larger graphs keep no matrix: each query runs a depth-first
//   search that never leaves the id range [a, b], O(ops + edges) at worst.
// - SweepReachBlock answers bulk queries for graphs of any size: for a block of up to
//   256 consecutive target ops, one backward and one forward sweep, O(ops + edges) and
//   O(ops) memory, give every op's relation to all targets at once. Analyses that need
//   all pairs (the forced-live lower bound) walk the ops in blocks: O(ops/256 * (ops +
//   edges)) time without quadratic memory.
#pragma once

#include <array>
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

// A set of up to 256 targets of a ReachBlock, one bit each.
struct TargetMask {
  static constexpr int32_t kWords = 4;
  static constexpr int32_t kBits = 64 * kWords;
  std::array<uint64_t, kWords> words{};

  TargetMask& operator|=(const TargetMask& other) {
    for (int32_t w = 0; w < kWords; ++w)
      words[static_cast<size_t>(w)] |= other.words[static_cast<size_t>(w)];
    return *this;
  }
  TargetMask operator&(const TargetMask& other) const {
    TargetMask result;
    for (int32_t w = 0; w < kWords; ++w) {
      result.words[static_cast<size_t>(w)] =
          words[static_cast<size_t>(w)] & other.words[static_cast<size_t>(w)];
    }
    return result;
  }
  void Set(int32_t bit) {
    words[static_cast<size_t>(bit / 64)] |= uint64_t{1} << (bit % 64);
  }
  bool Test(int32_t bit) const {
    return (words[static_cast<size_t>(bit / 64)] >> (bit % 64)) & 1;
  }
  static TargetMask FirstBits(int32_t count);  // Bits 0 .. count-1.
};

// Relations of every op to the targets [first, first + count), count <= 256.
struct ReachBlock {
  int32_t first = 0;
  int32_t count = 0;
  // Bit i of reaches_target[x]: x is first + i or one of its ancestors.
  std::vector<TargetMask> reaches_target;
  // Bit i of reached_from_target[x]: x is first + i or one of its descendants.
  std::vector<TargetMask> reached_from_target;

  // The mask with only `op`'s bit, or empty when `op` is not a target.
  TargetMask SelfBit(OpId op) const {
    TargetMask mask;
    const int32_t i = op.value() - first;
    if (i >= 0 && i < count) mask.Set(i);
    return mask;
  }
};

// Fills `block` for targets [first, first + count); reuses its vectors' storage.
void SweepReachBlock(const Graph& graph, int32_t first, int32_t count, ReachBlock& block);

}  // namespace olla
