#include "olla/graph/graph.h"

#include <algorithm>

#include <fmt/format.h>

#include "olla/core/bytes.h"
#include "olla/core/limits.h"
#include "olla/graph/cycle.h"

namespace olla {

std::string Graph::Describe(OpId id) const {
  const Op& o = op(id);
  if (o.name.empty()) return fmt::format("op {}", o.file_id);
  return fmt::format("op {} '{}'", o.file_id, o.name);
}

std::string Graph::Describe(BufferId id) const {
  const Buffer& b = buffer(id);
  if (b.name.empty()) return fmt::format("buffer {}", b.file_id);
  return fmt::format("buffer {} '{}'", b.file_id, b.name);
}

template <typename T>
Graph::FlatLists<T> Graph::GroupByList(size_t num_lists,
                                       const std::vector<std::pair<int32_t, T>>& pairs) {
  FlatLists<T> flat;
  flat.offsets.assign(num_lists + 1, 0);
  for (const auto& pair : pairs) ++flat.offsets[static_cast<size_t>(pair.first) + 1];
  for (size_t i = 0; i < num_lists; ++i) flat.offsets[i + 1] += flat.offsets[i];
  flat.targets.resize(pairs.size());
  std::vector<int64_t> next(flat.offsets.begin(), flat.offsets.end() - 1);
  for (const auto& [list, item] : pairs)
    flat.targets[static_cast<size_t>(next[static_cast<size_t>(list)]++)] = item;
  return flat;
}

StatusOr<Graph> Graph::Create(std::string name, std::vector<Buffer> buffers,
                              std::vector<Op> ops, std::vector<PrecedenceEdge> edges) {
  Graph graph;
  graph.name_ = std::move(name);
  graph.buffers_ = std::move(buffers);
  graph.ops_ = std::move(ops);
  graph.edges_ = std::move(edges);
  OLLA_RETURN_IF_ERROR(graph.BuildIndices());
  OLLA_RETURN_IF_ERROR(graph.CheckAcyclicInEagerOrder());
  return graph;
}

Status Graph::BuildIndices() {
  if (ops_.empty()) return InvalidInput("graph has no ops: there is nothing to schedule");
  const auto num_buffers = static_cast<int64_t>(buffers_.size());
  const auto num_ops = static_cast<int64_t>(ops_.size());
  if (num_buffers > INT32_MAX || num_ops > INT32_MAX) {
    return InvalidInput("graph has more than 2^31 ops or buffers");
  }

  // Sizes: non-negative, and their sum at most kMaxTotalBytes, so that no live set,
  // footprint, rounding or arena computed later can overflow (core/limits.h).
  int64_t total = 0;
  for (int32_t b = 0; b < num_buffers; ++b) {
    const Buffer& buffer = buffers_[static_cast<size_t>(b)];
    if (buffer.size < 0) {
      return InvalidInput(
          fmt::format("{} has negative size {}", Describe(BufferId(b)), buffer.size));
    }
    auto sum = CheckedAdd(total, buffer.size);
    if (!sum || *sum > kMaxTotalBytes) {
      return InvalidInput(fmt::format(
          "buffer sizes exceed 2^62 bytes in all: the running total passes {} at {}",
          kMaxTotalBytes, Describe(BufferId(b))));
    }
    total = *sum;
    if (buffer.persistent) persistent_bytes_ += buffer.size;
  }
  const bool costed = ops_.front().cost.has_value();
  for (int32_t o = 0; o < num_ops; ++o) {
    const Op& op = ops_[static_cast<size_t>(o)];
    if (op.cost.has_value() != costed) {
      return InvalidInput(fmt::format(
          "{} has {} cost while {} has {}: give every op its measured cost or none",
          Describe(OpId(o)), costed ? "no" : "a", Describe(OpId(0)),
          costed ? "one" : "none"));
    }
    if (op.cost && !(*op.cost >= 0 && *op.cost <= kMaxOpSeconds)) {
      return InvalidInput(fmt::format("{} has cost {}: expected seconds in [0, {}]",
                                      Describe(OpId(o)), *op.cost, kMaxOpSeconds));
    }
    if (op.workspace < 0) {
      return InvalidInput(
          fmt::format("{} has negative workspace {}", Describe(OpId(o)), op.workspace));
    }
    auto sum = CheckedAdd(total, op.workspace);
    if (!sum || *sum > kMaxTotalBytes) {
      return InvalidInput(fmt::format(
          "buffer and workspace sizes exceed 2^62 bytes in all: the running total passes "
          "{} at {}",
          kMaxTotalBytes, Describe(OpId(o))));
    }
    total = *sum;
  }

  // Producers: at most one per buffer, never a persistent buffer. Users in op order.
  // Built from (list, item) pairs counted into place: no list of its own per buffer.
  producer_.assign(static_cast<size_t>(num_buffers), OpId());
  std::vector<int32_t> last_user(static_cast<size_t>(num_buffers), -1);
  std::vector<std::pair<int32_t, OpId>> use_pairs;  // (buffer, user)
  for (int32_t o = 0; o < num_ops; ++o) {
    Op& op = ops_[static_cast<size_t>(o)];
    for (BufferId b : op.allocates) {
      if (!b.valid() || b.value() >= num_buffers) {
        return InvalidInput(fmt::format("{} allocates buffer index {}, out of range",
                                        Describe(OpId(o)), b.value()));
      }
      if (buffers_[b.index()].persistent) {
        return InvalidInput(fmt::format(
            "{} allocates persistent {}: persistent buffers exist before the step",
            Describe(OpId(o)), Describe(b)));
      }
      OpId& producer = producer_[b.index()];
      if (producer.valid()) {
        return InvalidInput(fmt::format("{} is allocated twice: by {} and by {}",
                                        Describe(b), Describe(producer),
                                        Describe(OpId(o))));
      }
      producer = OpId(o);
    }
    // An op may name a buffer twice in its uses (add(x, x)); keep the first.
    auto kept = op.uses.begin();
    for (BufferId b : op.uses) {
      if (!b.valid() || b.value() >= num_buffers) {
        return InvalidInput(fmt::format("{} uses buffer index {}, out of range",
                                        Describe(OpId(o)), b.value()));
      }
      if (last_user[b.index()] == o) continue;
      last_user[b.index()] = o;
      *kept++ = b;
      use_pairs.emplace_back(b.value(), OpId(o));
    }
    op.uses.erase(kept, op.uses.end());
    for (BufferId b : op.writes) {  // last_user marks what this op uses.
      if (!b.valid() || b.value() >= num_buffers) {
        return InvalidInput(fmt::format("{} writes buffer index {}, out of range",
                                        Describe(OpId(o)), b.value()));
      }
      if (last_user[b.index()] != o) {
        return InvalidInput(fmt::format("{} writes {}, which it does not use",
                                        Describe(OpId(o)), Describe(b)));
      }
    }
  }
  users_ = GroupByList(static_cast<size_t>(num_buffers), use_pairs);
  use_pairs = {};

  // Precedence: data edges (producer -> each user) and explicit edges, deduplicated.
  std::vector<std::pair<int32_t, OpId>> edge_pairs;  // (op, successor), then reversed
  edge_pairs.reserve(users_.targets.size() + edges_.size());
  for (int32_t b = 0; b < num_buffers; ++b) {
    OpId producer = producer_[static_cast<size_t>(b)];
    if (!producer.valid()) continue;
    for (OpId user : users(BufferId(b))) {
      if (user != producer) edge_pairs.emplace_back(producer.value(), user);
    }
  }
  for (const PrecedenceEdge& edge : edges_) {
    if (!edge.before.valid() || edge.before.value() >= num_ops || !edge.after.valid() ||
        edge.after.value() >= num_ops) {
      return InvalidInput("precedence edge names an op index out of range");
    }
    if (edge.before == edge.after) {
      return InvalidInput(fmt::format("precedence edge makes {} precede itself (a cycle)",
                                      Describe(edge.before)));
    }
    edge_pairs.emplace_back(edge.before.value(), edge.after);
  }
  successors_ = GroupByList(static_cast<size_t>(num_ops), edge_pairs);
  // Each op's successors sorted and deduplicated in place (two buffers of one producer
  // give two data edges).
  std::vector<int64_t>& offsets = successors_.offsets;
  std::vector<OpId>& targets = successors_.targets;
  int64_t kept = 0;
  edge_pairs.clear();
  for (int32_t o = 0; o < num_ops; ++o) {
    const auto begin = targets.begin() + offsets[static_cast<size_t>(o)];
    const auto end = targets.begin() + offsets[static_cast<size_t>(o) + 1];
    std::sort(begin, end);
    const int64_t first = kept;
    offsets[static_cast<size_t>(o)] = first;
    for (auto it = begin; it != end; ++it) {
      if (kept > first && targets[static_cast<size_t>(kept - 1)] == *it) continue;
      targets[static_cast<size_t>(kept++)] = *it;
      edge_pairs.emplace_back(it->value(), OpId(o));
    }
  }
  offsets[static_cast<size_t>(num_ops)] = kept;
  targets.resize(static_cast<size_t>(kept));
  predecessors_ = GroupByList(static_cast<size_t>(num_ops), edge_pairs);
  return OkStatus();
}

// Ops are stored in eager order, so the graph is acyclic and the eager order valid
// exactly when every edge points forward. Only when one does not do we search for a
// cycle, to tell the two failures apart in the message.
Status Graph::CheckAcyclicInEagerOrder() const {
  for (int32_t o = 0; o < num_ops(); ++o) {
    for (OpId next : successors(OpId(o))) {
      if (next.value() > o) continue;
      std::vector<OpId> cycle = FindCycle(*this);
      if (!cycle.empty()) {
        std::string names;
        for (OpId id : cycle) names += Describe(id) + " -> ";
        names += Describe(cycle.front());
        return InvalidInput("precedence has a cycle: " + names);
      }
      // No cycle: the edge is satisfiable, but not by the eager order as given.
      for (BufferId b : ops_[static_cast<size_t>(o)].allocates) {
        for (OpId user : users(b)) {
          if (user == next) {
            return InvalidInput(
                fmt::format("eager order is not valid: {} uses {} before {} allocates it",
                            Describe(next), Describe(b), Describe(OpId(o))));
          }
        }
      }
      return InvalidInput(fmt::format(
          "eager order is not valid: {} runs before {}, but a precedence edge requires "
          "it after",
          Describe(next), Describe(OpId(o))));
    }
  }
  return OkStatus();
}

}  // namespace olla
