#include "olla/plan/expand.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <queue>
#include <string>
#include <tuple>
#include <unordered_set>

#include <fmt/format.h>

#include "olla/plan/recompute_rules.h"

namespace olla {
namespace {

std::string Name(const Graph& graph, std::span<const Recomputation> recompute, size_t i) {
  return fmt::format("recompute[{}] ({})", i, graph.Describe(recompute[i].op));
}

// Index of `buffer` among the op's outputs, or -1.
int32_t OutputIndex(const Op& op, BufferId buffer) {
  auto it = std::find(op.allocates.begin(), op.allocates.end(), buffer);
  return it == op.allocates.end() ? -1 : static_cast<int32_t>(it - op.allocates.begin());
}

bool ReadsAnOutput(const Op& reader, const Op& op) {
  return std::any_of(reader.uses.begin(), reader.uses.end(),
                     [&](BufferId b) { return OutputIndex(op, b) >= 0; });
}

Status Validate(const Graph& graph, std::span<const Recomputation> recompute) {
  std::unordered_set<int64_t> op_ids, buffer_ids;
  for (const Op& op : graph.ops()) op_ids.insert(op.file_id);
  for (const Buffer& buffer : graph.buffers()) buffer_ids.insert(buffer.file_id);
  // (op, reader) -> the run of that op the reader reads: an op may run again more than
  // once, for different readers, but a reader reads one run's copies of an op's outputs.
  // Readers: graph ops by their index, runs by -1 - their index.
  std::map<std::pair<int32_t, int64_t>, size_t> run_read_by;
  auto read_once = [&](size_t i, int64_t reader) -> std::optional<size_t> {
    const auto [at, fresh] =
        run_read_by.try_emplace({recompute[i].op.value(), reader}, i);
    if (fresh) return std::nullopt;
    return at->second;
  };
  for (size_t i = 0; i < recompute.size(); ++i) {
    const Recomputation& r = recompute[i];
    if (!r.op.valid() || r.op.value() >= graph.num_ops())
      return InvalidInput(fmt::format("recompute[{}]: no such op", i));
    const std::string name = Name(graph, recompute, i);
    const std::string refusal = RecomputeRefusal(graph, r.op);
    if (!refusal.empty())
      return InvalidInput(fmt::format("{}: cannot be recomputed: {}", name, refusal));
    const Op& op = graph.op(r.op);
    if (r.copy_ids.size() != op.allocates.size()) {
      return InvalidInput(fmt::format("{}: {} copies for the op's {} outputs", name,
                                      r.copy_ids.size(), op.allocates.size()));
    }
    if (!op_ids.insert(r.file_id).second)
      return InvalidInput(fmt::format("{}: op id {} is taken", name, r.file_id));
    for (int64_t id : r.copy_ids) {
      if (!buffer_ids.insert(id).second)
        return InvalidInput(fmt::format("{}: buffer id {} is taken", name, id));
    }
    if (r.serves.empty() && r.feeds.empty())
      return InvalidInput(fmt::format("{}: serves no op", name));
    std::unordered_set<int32_t> served;
    for (OpId user : r.serves) {
      if (!user.valid() || user.value() >= graph.num_ops())
        return InvalidInput(fmt::format("{}: serves an op that does not exist", name));
      if (!served.insert(user.value()).second || user == r.op ||
          !ReadsAnOutput(graph.op(user), op)) {
        return InvalidInput(
            fmt::format("{}: serves {}, which does not read its outputs "
                        "(or is listed twice)",
                        name, graph.Describe(user)));
      }
      if (const std::optional<size_t> other = read_once(i, user.value())) {
        return InvalidInput(
            fmt::format("{}: serves {}, which recompute[{}] of the same op "
                        "serves too",
                        name, graph.Describe(user), *other));
      }
    }
    std::unordered_set<int32_t> fed;
    for (int32_t j : r.feeds) {
      if (j < 0 || static_cast<size_t>(j) >= recompute.size() ||
          static_cast<size_t>(j) == i || !fed.insert(j).second ||
          !recompute[static_cast<size_t>(j)].op.valid() ||
          recompute[static_cast<size_t>(j)].op.value() >= graph.num_ops() ||
          !ReadsAnOutput(graph.op(recompute[static_cast<size_t>(j)].op), op)) {
        return InvalidInput(fmt::format(
            "{}: feeds recompute[{}], which does not read its outputs (or is listed "
            "twice)",
            name, j));
      }
      if (const std::optional<size_t> other = read_once(i, -1 - int64_t{j})) {
        return InvalidInput(
            fmt::format("{}: feeds recompute[{}], which recompute[{}] of the same op "
                        "feeds too",
                        name, j, *other));
      }
    }
  }
  return OkStatus();
}

}  // namespace

void AssignRecomputeIds(const Graph& graph, std::vector<Recomputation>& recompute) {
  int64_t next_op = 0, next_buffer = 0;
  for (const Op& op : graph.ops()) next_op = std::max(next_op, op.file_id + 1);
  for (const Buffer& b : graph.buffers())
    next_buffer = std::max(next_buffer, b.file_id + 1);
  for (Recomputation& r : recompute) {
    r.file_id = next_op++;
    r.copy_ids.clear();
    for (size_t k = 0; k < graph.op(r.op).allocates.size(); ++k)
      r.copy_ids.push_back(next_buffer++);
  }
}

StatusOr<ExpandedGraph> ExpandGraph(const Graph& graph,
                                    std::span<const Recomputation> recompute) {
  OLLA_RETURN_IF_ERROR(Validate(graph, recompute));
  const auto n = static_cast<size_t>(graph.num_ops());
  const size_t total = n + recompute.size();

  // Buffers: the graph's, then each recomputation's copies.
  std::vector<Buffer> buffers = graph.buffers();
  std::vector<BufferId> source_buffer;
  source_buffer.reserve(buffers.size());
  for (int32_t b = 0; b < graph.num_buffers(); ++b) source_buffer.push_back(BufferId(b));
  std::vector<std::vector<BufferId>> copies(recompute.size());
  for (size_t i = 0; i < recompute.size(); ++i) {
    const Op& op = graph.op(recompute[i].op);
    for (size_t k = 0; k < op.allocates.size(); ++k) {
      const BufferId original = op.allocates[k];
      Buffer copy = graph.buffer(original);
      copy.file_id = recompute[i].copy_ids[k];
      copy.name += " (recomputed)";
      copy.output = false;
      copies[i].push_back(BufferId(static_cast<int32_t>(buffers.size())));
      source_buffer.push_back(original);
      buffers.push_back(std::move(copy));
    }
  }

  // Ops, in "slot" numbering: the graph's ops 0..n-1, then the recomputations.
  std::vector<Op> ops = graph.ops();
  for (size_t i = 0; i < recompute.size(); ++i) {
    Op op = graph.op(recompute[i].op);
    op.file_id = recompute[i].file_id;
    op.name += " (recomputed)";
    op.allocates = copies[i];
    ops.push_back(std::move(op));
  }
  auto read_copies = [&](Op& reader, size_t i) {
    const Op& op = graph.op(recompute[i].op);
    for (BufferId& b : reader.uses) {
      const int32_t k = OutputIndex(op, b);
      if (k >= 0) b = copies[i][static_cast<size_t>(k)];
    }
  };
  for (size_t i = 0; i < recompute.size(); ++i) {
    for (OpId user : recompute[i].serves) read_copies(ops[user.index()], i);
    for (int32_t j : recompute[i].feeds) read_copies(ops[n + static_cast<size_t>(j)], i);
  }

  // Precedence in slots: the graph's edges, original before recomputation, and each
  // recomputation before the later overwriters of what it reads.
  std::vector<std::pair<size_t, size_t>> edges;
  for (const PrecedenceEdge& e : graph.explicit_edges())
    edges.emplace_back(e.before.index(), e.after.index());
  for (size_t i = 0; i < recompute.size(); ++i) {
    const OpId original = recompute[i].op;
    edges.emplace_back(original.index(), n + i);
    for (BufferId input : ops[n + i].uses) {
      if (input.value() >= graph.num_buffers()) continue;  // A copy: nobody writes it.
      for (OpId writer : graph.users(input)) {
        if (writer.value() > original.value() && MayOverwrite(graph.op(writer), input))
          edges.emplace_back(n + i, writer.index());
      }
    }
  }
  std::vector<std::vector<size_t>> successors(total);
  std::vector<int32_t> waiting(total, 0);
  std::vector<int32_t> producer(buffers.size(), -1);
  for (size_t s = 0; s < total; ++s) {
    for (BufferId b : ops[s].allocates) producer[b.index()] = static_cast<int32_t>(s);
  }
  auto add_edge = [&](size_t before, size_t after) {
    successors[before].push_back(after);
    ++waiting[after];
  };
  for (size_t s = 0; s < total; ++s) {
    for (BufferId b : ops[s].uses) {
      const int32_t p = producer[b.index()];
      if (p >= 0 && static_cast<size_t>(p) != s) add_edge(static_cast<size_t>(p), s);
    }
  }
  for (auto [before, after] : edges) add_edge(before, after);

  // The eager order: Kahn's algorithm by (key, depth). A graph op's key is its eager
  // index; a recomputation's is the least key of what reads its copies, so it runs just
  // before the first of them, and among recomputations with one key the deepest feeder
  // first.
  std::vector<std::pair<int64_t, int32_t>> key(total);
  for (size_t s = 0; s < n; ++s) key[s] = {static_cast<int64_t>(s), 0};
  // A recomputation feeds only later ops' recomputations (its reader uses its op's
  // outputs), so from the last op back every fed key is known.
  std::vector<size_t> by_op(recompute.size());
  for (size_t i = 0; i < by_op.size(); ++i) by_op[i] = i;
  std::sort(by_op.begin(), by_op.end(), [&](size_t a, size_t b) {
    return recompute[a].op.value() > recompute[b].op.value();
  });
  for (size_t i : by_op) {
    std::pair<int64_t, int32_t> best{static_cast<int64_t>(n), -1};
    for (OpId user : recompute[i].serves)
      best = std::min(best, {static_cast<int64_t>(user.index()), -1});
    for (int32_t j : recompute[i].feeds) {
      const auto [k, depth] = key[n + static_cast<size_t>(j)];
      best = std::min(best, {k, depth - 1});
    }
    key[n + i] = best;
  }
  using Entry = std::tuple<int64_t, int32_t, size_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
  for (size_t s = 0; s < total; ++s) {
    if (waiting[s] == 0) ready.emplace(key[s].first, key[s].second, s);
  }
  std::vector<size_t> order;
  order.reserve(total);
  while (!ready.empty()) {
    const size_t s = std::get<2>(ready.top());
    ready.pop();
    order.push_back(s);
    for (size_t next : successors[s]) {
      if (--waiting[next] == 0) ready.emplace(key[next].first, key[next].second, next);
    }
  }
  if (order.size() != total) {
    for (size_t i = 0; i < recompute.size(); ++i) {
      if (waiting[n + i] > 0 ||
          std::any_of(successors[n + i].begin(), successors[n + i].end(),
                      [&](size_t next) { return waiting[next] > 0; })) {
        return InvalidInput(fmt::format(
            "{}: cannot run: an input it reads is overwritten before the ops it serves "
            "run (the precedence has a cycle)",
            Name(graph, recompute, i)));
      }
    }
    return InvalidInput("the recomputations make the precedence cyclic");
  }

  std::vector<OpId> id_of_slot(total);
  for (size_t e = 0; e < total; ++e) id_of_slot[order[e]] = OpId(static_cast<int32_t>(e));
  std::vector<Op> sorted;
  std::vector<OpId> source_op;
  sorted.reserve(total);
  for (size_t s : order) {
    sorted.push_back(std::move(ops[s]));
    source_op.push_back(s < n ? OpId(static_cast<int32_t>(s)) : recompute[s - n].op);
  }
  std::vector<PrecedenceEdge> expanded_edges;
  expanded_edges.reserve(edges.size());
  for (auto [before, after] : edges)
    expanded_edges.push_back({id_of_slot[before], id_of_slot[after]});
  OLLA_ASSIGN_OR_RETURN(
      Graph expanded_graph,
      Graph::Create(graph.name(), std::move(buffers), std::move(sorted), expanded_edges));
  ExpandedGraph expanded{std::move(expanded_graph),
                         {id_of_slot.begin(), id_of_slot.begin() + static_cast<long>(n)},
                         {id_of_slot.begin() + static_cast<long>(n), id_of_slot.end()},
                         std::move(source_op),
                         std::move(source_buffer)};
  return expanded;
}

std::vector<PlanStep> PlanSteps(const ExpandedGraph& expanded, const Order& order) {
  std::vector<int32_t> run_of(static_cast<size_t>(expanded.graph.num_ops()), -1);
  for (size_t i = 0; i < expanded.recompute_op.size(); ++i)
    run_of[expanded.recompute_op[i].index()] = static_cast<int32_t>(i);
  std::vector<PlanStep> steps;
  steps.reserve(order.ops.size());
  for (const OpId e : order.ops) {
    const Op& op = expanded.graph.op(e);
    PlanStep step;
    step.entry = e;
    step.op = expanded.source_op[e.index()];
    if (run_of[e.index()] >= 0) {
      step.recomputation = run_of[e.index()];
      for (const BufferId copy : op.allocates)
        step.copies.emplace_back(expanded.source_buffer[copy.index()], copy);
    }
    for (const BufferId read : op.uses) {
      if (expanded.source_buffer[read.index()] == read) continue;  // An original.
      const int32_t run = run_of[expanded.graph.producer(read).index()];
      if (std::find(step.reads_copies_of.begin(), step.reads_copies_of.end(), run) ==
          step.reads_copies_of.end()) {
        step.reads_copies_of.push_back(run);
      }
    }
    std::sort(step.reads_copies_of.begin(), step.reads_copies_of.end());
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace olla
