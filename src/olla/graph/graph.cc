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
Graph::FlatLists<T> Graph::MakeFlatLists(std::vector<std::vector<T>> lists) {
  FlatLists<T> flat;
  flat.offsets.reserve(lists.size() + 1);
  flat.offsets.push_back(0);
  for (const auto& list : lists) {
    flat.offsets.push_back(flat.offsets.back() + static_cast<int64_t>(list.size()));
  }
  flat.targets.reserve(static_cast<size_t>(flat.offsets.back()));
  for (auto& list : lists)
    flat.targets.insert(flat.targets.end(), list.begin(), list.end());
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
  for (int32_t o = 0; o < num_ops; ++o) {
    const Op& op = ops_[static_cast<size_t>(o)];
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

  // Producers: at most one per buffer, never a persistent buffer.
  producer_.assign(static_cast<size_t>(num_buffers), OpId());
  std::vector<std::vector<OpId>> users(static_cast<size_t>(num_buffers));
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
    std::vector<BufferId> unique_uses;
    unique_uses.reserve(op.uses.size());
    for (BufferId b : op.uses) {
      if (!b.valid() || b.value() >= num_buffers) {
        return InvalidInput(fmt::format("{} uses buffer index {}, out of range",
                                        Describe(OpId(o)), b.value()));
      }
      auto& list = users[b.index()];
      if (!list.empty() && list.back() == OpId(o)) continue;
      list.push_back(OpId(o));
      unique_uses.push_back(b);
    }
    op.uses = std::move(unique_uses);
    for (BufferId b : op.writes) {
      if (!b.valid() || b.value() >= num_buffers) {
        return InvalidInput(fmt::format("{} writes buffer index {}, out of range",
                                        Describe(OpId(o)), b.value()));
      }
      if (std::find(op.uses.begin(), op.uses.end(), b) == op.uses.end()) {
        return InvalidInput(fmt::format("{} writes {}, which it does not use",
                                        Describe(OpId(o)), Describe(b)));
      }
    }
  }

  // Precedence: data edges (producer -> each user) and explicit edges, deduplicated.
  std::vector<std::vector<OpId>> successors(static_cast<size_t>(num_ops));
  for (int32_t b = 0; b < num_buffers; ++b) {
    OpId producer = producer_[static_cast<size_t>(b)];
    if (!producer.valid()) continue;
    for (OpId user : users[static_cast<size_t>(b)]) {
      if (user != producer) successors[producer.index()].push_back(user);
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
    successors[edge.before.index()].push_back(edge.after);
  }
  std::vector<std::vector<OpId>> predecessors(static_cast<size_t>(num_ops));
  for (int32_t o = 0; o < num_ops; ++o) {
    auto& list = successors[static_cast<size_t>(o)];
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    for (OpId next : list) predecessors[next.index()].push_back(OpId(o));
  }
  users_ = MakeFlatLists(std::move(users));
  successors_ = MakeFlatLists(std::move(successors));
  predecessors_ = MakeFlatLists(std::move(predecessors));
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
