// Graph: the dataflow graph of one training step, at the level of storage buffers.
//
// Ops are stored in eager order (the order the framework would run them): OpId i is the
// i-th op to run eagerly. A buffer is allocated by at most one op and used (read or
// written) by any number of ops. Precedence is the union of data dependencies (the
// allocating op runs before every user) and explicit edges (in-place hazards, control
// dependencies). A Graph is immutable and always valid: Graph::Create rejects anything
// that breaks the memory model (see docs/graph-format.md), so algorithms never re-check.
//
// Cost: O(ops + buffers + uses + edges) to build; adjacency lists are flat arrays.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "olla/core/ids.h"
#include "olla/core/status.h"

namespace olla {

enum class Phase { kForward, kBackward, kOptimizer };

// What a buffer holds. Informational except where noted in docs/graph-format.md;
// persistence is its own flag, not implied by the kind.
enum class BufferKind {
  kActivation,
  kGradient,
  kParameter,
  kOptimizerState,
  kBuffer,  // A module buffer such as batch-norm running statistics.
  kInput,
  kOther,
};

struct Buffer {
  int64_t file_id = 0;  // The id written in the graph file.
  std::string name;
  int64_t size = 0;  // Bytes.
  BufferKind kind = BufferKind::kActivation;
  bool persistent = false;  // Lives before and after the step; never in the arena.
  bool output = false;      // Live until the end of the step.
  std::vector<int64_t> shape;
  std::string dtype;
};

struct Op {
  int64_t file_id = 0;  // The id written in the graph file.
  std::string name;
  std::string type;  // For example "aten::convolution".
  Phase phase = Phase::kForward;
  std::vector<BufferId> allocates;  // Buffers this op creates (its outputs).
  std::vector<BufferId> uses;       // Buffers it reads or writes in place.
  // The buffers among `uses` it overwrites in place (relu_, an optimizer's add_).
  // Informational except to rematerialization (plan/recompute_rules.h).
  std::vector<BufferId> writes;
  // It draws random numbers (dropout): running it again gives other values.
  bool random = false;
  int64_t workspace = 0;  // Scratch bytes live only while this op runs.
  // What one run of the op costs, measured, in seconds; absent where not measured. A
  // graph gives every op a cost or none (Graph::has_measured_costs).
  std::optional<double> cost;
};

// An explicit ordering constraint: `before` must run before `after`.
struct PrecedenceEdge {
  OpId before;
  OpId after;
};

class Graph {
 public:
  // Validates the parts against the memory model and builds the derived indices. Ops
  // must be in eager order; ids inside `ops` and `edges` index into the vectors.
  static StatusOr<Graph> Create(std::string name, std::vector<Buffer> buffers,
                                std::vector<Op> ops, std::vector<PrecedenceEdge> edges);

  const std::string& name() const { return name_; }
  int32_t num_ops() const { return static_cast<int32_t>(ops_.size()); }
  int32_t num_buffers() const { return static_cast<int32_t>(buffers_.size()); }
  const std::vector<Op>& ops() const { return ops_; }
  const std::vector<Buffer>& buffers() const { return buffers_; }
  const Op& op(OpId id) const { return ops_[id.index()]; }
  const Buffer& buffer(BufferId id) const { return buffers_[id.index()]; }
  const std::vector<PrecedenceEdge>& explicit_edges() const { return edges_; }

  // The op that allocates `id`, or an invalid OpId for graph inputs and persistent
  // buffers.
  OpId producer(BufferId id) const { return producer_[id.index()]; }
  // The ops that use `id`, in eager order, without duplicates.
  std::span<const OpId> users(BufferId id) const { return Slice(users_, id.index()); }
  // Direct successors and predecessors under data and explicit precedence, sorted by
  // id, without duplicates.
  std::span<const OpId> successors(OpId id) const {
    return Slice(successors_, id.index());
  }
  std::span<const OpId> predecessors(OpId id) const {
    return Slice(predecessors_, id.index());
  }
  int64_t num_edges() const { return static_cast<int64_t>(successors_.targets.size()); }

  // Total bytes of persistent buffers (the constant outside the arena).
  int64_t persistent_bytes() const { return persistent_bytes_; }
  // Every op has a measured cost (remat/cost.h uses them instead of its estimate).
  bool has_measured_costs() const { return ops_.front().cost.has_value(); }

  // "op 7 'relu_'" and "buffer 12 'weight'": how messages name things, with file ids.
  std::string Describe(OpId id) const;
  std::string Describe(BufferId id) const;

 private:
  // Flat adjacency: the neighbours of node i are targets[offsets[i] .. offsets[i+1]).
  template <typename T>
  struct FlatLists {
    std::vector<int64_t> offsets;
    std::vector<T> targets;
  };
  template <typename T>
  static std::span<const T> Slice(const FlatLists<T>& lists, size_t i) {
    return std::span<const T>(lists.targets)
        .subspan(static_cast<size_t>(lists.offsets[i]),
                 static_cast<size_t>(lists.offsets[i + 1] - lists.offsets[i]));
  }
  // The lists of `num_lists` nodes from (node, item) pairs, each list in pair order.
  template <typename T>
  static FlatLists<T> GroupByList(size_t num_lists,
                                  const std::vector<std::pair<int32_t, T>>& pairs);

  Graph() = default;
  Status BuildIndices();
  Status CheckAcyclicInEagerOrder() const;

  std::string name_;
  std::vector<Buffer> buffers_;
  std::vector<Op> ops_;
  std::vector<PrecedenceEdge> edges_;
  std::vector<OpId> producer_;
  FlatLists<OpId> users_;
  FlatLists<OpId> successors_;
  FlatLists<OpId> predecessors_;
  int64_t persistent_bytes_ = 0;
};

// The names of phases and kinds in files and reports, indexed by the enum's value.
inline constexpr std::array<const char*, 3> kPhaseNames = {"forward", "backward",
                                                           "optimizer"};
inline constexpr std::array<const char*, 7> kBufferKindNames = {
    "activation", "gradient", "parameter", "optimizer_state", "buffer", "input", "other"};

inline const char* PhaseName(Phase phase) {
  return kPhaseNames[static_cast<size_t>(phase)];
}
inline const char* BufferKindName(BufferKind kind) {
  return kBufferKindNames[static_cast<size_t>(kind)];
}

}  // namespace olla
