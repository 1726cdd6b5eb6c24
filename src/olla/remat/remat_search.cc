#include "olla/remat/remat_search.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "olla/analysis/lifetimes.h"
#include "olla/analysis/timeline.h"
#include "olla/analysis/topology.h"
#include "olla/plan/expand.h"
#include "olla/plan/recompute_rules.h"
#include "olla/remat/cost.h"

namespace olla {
namespace {

// One set of dropped buffers, expanded and measured.
struct Measurement {
  std::vector<Recomputation> recompute;
  std::optional<ExpandedGraph> expanded;
  Order order;
  Lifetimes lifetimes;
  MemoryTimeline timeline;
  int64_t excess = 0;  // Bytes above the target, summed over the steps.
  int64_t added_cost = 0;
};

class Search {
 public:
  Search(const Graph& graph, const Order& order, const RematOptions& options)
      : graph_(graph), order_(order), options_(options) {
    const auto ops = static_cast<size_t>(graph.num_ops());
    cost_.resize(ops);
    recomputable_.resize(ops);
    for (int32_t o = 0; o < graph.num_ops(); ++o) {
      cost_[static_cast<size_t>(o)] = OpCost(graph, OpId(o));
      recomputable_[static_cast<size_t>(o)] =
          graph.op(OpId(o)).phase == Phase::kForward &&
          RecomputeRefusal(graph, OpId(o)).empty();
    }
    copyable_.resize(static_cast<size_t>(graph.num_buffers()));
    droppable_.resize(static_cast<size_t>(graph.num_buffers()));
    backward_users_.resize(static_cast<size_t>(graph.num_buffers()));
    for (int32_t b = 0; b < graph.num_buffers(); ++b) {
      for (OpId user : graph.users(BufferId(b))) {
        if (graph.op(user).phase == Phase::kBackward)
          backward_users_[static_cast<size_t>(b)].push_back(user);
      }
      const Buffer& buffer = graph.buffer(BufferId(b));
      const OpId producer = graph.producer(BufferId(b));
      copyable_[static_cast<size_t>(b)] = !buffer.persistent && !buffer.output &&
                                          producer.valid() &&
                                          recomputable_[producer.index()];
      droppable_[static_cast<size_t>(b)] = copyable_[static_cast<size_t>(b)] &&
                                           buffer.size > 0 &&
                                           !BackwardUsers(BufferId(b)).empty();
    }
  }

  // Its users in the backward pass, in eager order (computed once: every measurement
  // reads them).
  const std::vector<OpId>& BackwardUsers(BufferId b) const {
    return backward_users_[b.index()];
  }

  // Its producer may run again to make a copy (for a recomputation that reads it).
  bool copyable(BufferId b) const { return copyable_[b.index()]; }
  // Copyable, and read again in the backward pass: dropping it can free bytes.
  bool droppable(BufferId b) const { return droppable_[b.index()]; }
  int64_t cost(OpId op) const { return cost_[op.index()]; }

  // The recomputations that drop `dropped`: one per producer, serving the backward
  // users of its dropped outputs and feeding the recomputations that read them.
  std::vector<Recomputation> Recomputations(const std::vector<char>& dropped) const {
    std::vector<int32_t> index(static_cast<size_t>(graph_.num_ops()), -1);
    std::vector<Recomputation> recompute;
    for (int32_t o = 0; o < graph_.num_ops(); ++o) {
      const Op& op = graph_.op(OpId(o));
      if (std::none_of(op.allocates.begin(), op.allocates.end(),
                       [&](BufferId b) { return dropped[b.index()]; }))
        continue;
      std::vector<OpId> serves;
      for (BufferId b : op.allocates) {
        if (!dropped[b.index()]) continue;
        for (OpId user : BackwardUsers(b)) serves.push_back(user);
      }
      std::sort(serves.begin(), serves.end());
      serves.erase(std::unique(serves.begin(), serves.end()), serves.end());
      index[static_cast<size_t>(o)] = static_cast<int32_t>(recompute.size());
      recompute.push_back({OpId(o), std::move(serves), {}, 0, {}});
    }
    for (size_t j = 0; j < recompute.size(); ++j) {
      std::vector<int32_t> feeders;
      for (BufferId input : graph_.op(recompute[j].op).uses) {
        const OpId producer = graph_.producer(input);
        if (dropped[input.index()] && producer.valid() && index[producer.index()] >= 0)
          feeders.push_back(index[producer.index()]);
      }
      std::sort(feeders.begin(), feeders.end());
      feeders.erase(std::unique(feeders.begin(), feeders.end()), feeders.end());
      for (int32_t i : feeders)
        recompute[static_cast<size_t>(i)].feeds.push_back(static_cast<int32_t>(j));
    }
    // A copy nothing reads (its reader's recomputation was given back) is no help.
    const size_t before = recompute.size();
    recompute.erase(std::remove_if(recompute.begin(), recompute.end(),
                                   [](const Recomputation& r) {
                                     return r.serves.empty() && r.feeds.empty();
                                   }),
                    recompute.end());
    if (recompute.size() != before) {
      std::vector<char> kept = dropped;
      for (int32_t o = 0; o < graph_.num_ops(); ++o) {
        const bool still =
            std::any_of(recompute.begin(), recompute.end(),
                        [&](const Recomputation& r) { return r.op == OpId(o); });
        if (!still) {
          for (BufferId b : graph_.op(OpId(o)).allocates) kept[b.index()] = 0;
        }
      }
      return Recomputations(kept);
    }
    AssignRecomputeIds(graph_, recompute);
    return recompute;
  }

  // Expands, orders (each recomputation just before its first reader in the given
  // order) and measures; nullopt when the expansion or its order is invalid.
  std::optional<Measurement> Measure(const std::vector<char>& dropped) const {
    Measurement m;
    m.recompute = Recomputations(dropped);
    StatusOr<ExpandedGraph> expanded = ExpandGraph(graph_, m.recompute);
    if (!expanded.ok()) return std::nullopt;
    m.expanded = std::move(expanded).value();
    const Graph& g = m.expanded->graph;
    std::vector<char> emitted(static_cast<size_t>(g.num_ops()), 0);
    std::vector<std::pair<OpId, size_t>> stack;
    m.order.ops.reserve(static_cast<size_t>(g.num_ops()));
    // The given order, each recomputation pulled in just before the first op that reads
    // its copies. An op that must wait for a recomputation without reading it (one
    // that overwrites what the recomputation reads: an optimizer's update of a
    // weight) waits instead, with everything after it that needs it, rather than
    // pulling the recomputation early; so does a view that reads a copy (it only keeps
    // the copy alive, and its readers read the copy).
    const ExpandedGraph& e = *m.expanded;
    std::vector<char> deferred(static_cast<size_t>(g.num_ops()), 0);
    std::vector<OpId> waiting;  // Deferred ops, in the given order.
    auto reads_output_of = [&](OpId reader, OpId writer) {
      for (BufferId b : g.op(reader).uses) {
        if (g.producer(b) == writer) return true;
      }
      return false;
    };
    auto is_view = [&](OpId id) { return IsView(g.op(id)) && g.op(id).workspace == 0; };
    auto must_wait = [&](OpId id) {
      for (OpId before : g.predecessors(id)) {
        if (emitted[before.index()]) continue;
        if (deferred[before.index()] || is_view(id)) return true;
        if (e.is_recomputation(before) && !reads_output_of(id, before)) return true;
      }
      return false;
    };
    auto ready = [&](OpId id) {
      for (OpId before : g.predecessors(id)) {
        if (!emitted[before.index()]) return false;
      }
      return true;
    };
    auto release = [&] {  // The waiting ops whose predecessors have all run.
      for (bool progress = true; progress;) {
        progress = false;
        for (OpId id : waiting) {
          if (deferred[id.index()] && ready(id)) {
            deferred[id.index()] = 0;
            emitted[id.index()] = 1;
            m.order.ops.push_back(id);
            progress = true;
          }
        }
      }
      std::erase_if(waiting, [&](OpId id) { return !deferred[id.index()]; });
    };
    auto emit_with_predecessors = [&](OpId op) {
      // Depth first over the recomputations (and waiting ops) it needs, theirs first.
      stack.push_back({op, 0});
      while (!stack.empty()) {
        auto& [current, next] = stack.back();
        const auto predecessors = g.predecessors(current);
        if (next < predecessors.size()) {
          const OpId before = predecessors[next++];
          if (!emitted[before.index()] &&
              (e.is_recomputation(before) || deferred[before.index()]))
            stack.push_back({before, 0});
          continue;
        }
        const OpId done = current;
        stack.pop_back();
        if (emitted[done.index()]) continue;
        deferred[done.index()] = 0;
        emitted[done.index()] = 1;
        m.order.ops.push_back(done);
        if (e.is_recomputation(done)) release();
      }
    };
    for (OpId original : order_.ops) {
      const OpId op = e.expanded_op[original.index()];
      if (must_wait(op)) {
        deferred[op.index()] = 1;
        waiting.push_back(op);
        continue;
      }
      emit_with_predecessors(op);
    }
    for (OpId id : std::vector<OpId>(waiting)) {  // What nothing needed sooner.
      if (!emitted[id.index()]) emit_with_predecessors(id);
    }
    if (!CheckValidOrder(g, m.order).ok()) return std::nullopt;
    m.lifetimes = ComputeLifetimes(g, m.order);
    m.timeline = ComputeTimeline(g, m.order, m.lifetimes);
    for (int64_t live : m.timeline.live_bytes)
      m.excess += std::max<int64_t>(0, live - options_.target_bytes);
    for (const Recomputation& r : m.recompute) m.added_cost += cost(r.op);
    return m;
  }

  // A way to lower the peak: buffers to drop, with an estimate of the bytes it frees
  // at the peak step and of the compute it adds.
  struct Candidate {
    std::vector<BufferId> drop;
    int64_t freed = 0;
    int64_t added = 0;
  };

  // For each droppable buffer live at the peak step and not used there: dropping it
  // alone, and dropping it with the droppable inputs its recomputation would bring back
  // to life across the step (transitively). The best estimated bytes freed per unit of
  // compute first; those that free nothing by the estimate are left out.
  std::vector<Candidate> Candidates(const Measurement& m,
                                    const std::vector<char>& dropped) const {
    const Graph& g = m.expanded->graph;
    const int32_t step = m.timeline.peak_step;
    const Op& running = g.op(m.order.ops[static_cast<size_t>(step)]);
    std::vector<char> recomputed(static_cast<size_t>(graph_.num_ops()), 0);
    for (const Recomputation& r : m.recompute) recomputed[r.op.index()] = 1;
    auto used_at_step = [&](BufferId id) {
      return std::find(running.uses.begin(), running.uses.end(), id) !=
                 running.uses.end() ||
             std::find(running.allocates.begin(), running.allocates.end(), id) !=
                 running.allocates.end();
    };
    auto dead_at_step = [&](BufferId id) {
      return !graph_.buffer(id).persistent && !m.lifetimes[id].Contains(step);
    };
    std::vector<std::pair<double, Candidate>> ranked;
    auto rank = [&](Candidate c) {
      if (c.freed <= 0) return;
      const double score =
          static_cast<double>(c.freed) / static_cast<double>(c.added + 1);
      ranked.push_back({-score, std::move(c)});
    };
    for (int32_t b = 0; b < graph_.num_buffers(); ++b) {
      const BufferId id(b);
      if (dropped[id.index()] || !droppable(id) || !m.lifetimes[id].Contains(step) ||
          used_at_step(id))
        continue;
      // Alone: its producer's inputs dead at the step come back.
      const OpId producer = graph_.producer(id);
      Candidate alone{{id},
                      graph_.buffer(id).size,
                      recomputed[producer.index()] ? 0 : cost(producer)};
      for (BufferId input : graph_.op(producer).uses) {
        if (dead_at_step(input)) alone.freed -= graph_.buffer(input).size;
      }
      // With its chain: inputs dead at the step that can be dropped are recomputed too.
      Candidate chain{{id}, graph_.buffer(id).size, alone.added};
      std::vector<char> in_chain(static_cast<size_t>(graph_.num_buffers()), 0);
      in_chain[id.index()] = 1;
      bool longer = false;
      for (size_t next = 0; next < chain.drop.size(); ++next) {
        const OpId from = graph_.producer(chain.drop[next]);
        for (BufferId input : graph_.op(from).uses) {
          if (in_chain[input.index()] || dropped[input.index()] || !dead_at_step(input))
            continue;
          in_chain[input.index()] = 1;
          if (copyable(input)) {
            chain.drop.push_back(input);
            const OpId p = graph_.producer(input);
            if (!recomputed[p.index()]) chain.added += cost(p);
            longer = true;
          } else {
            chain.freed -= graph_.buffer(input).size;
          }
        }
      }
      rank(std::move(alone));
      if (longer) rank(std::move(chain));
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<Candidate> candidates;
    for (auto& entry : ranked) candidates.push_back(std::move(entry.second));
    return candidates;
  }

 private:
  const Graph& graph_;
  const Order& order_;
  const RematOptions& options_;
  std::vector<int64_t> cost_;
  std::vector<char> recomputable_;
  std::vector<char> copyable_;
  std::vector<char> droppable_;
  std::vector<std::vector<OpId>> backward_users_;
};

}  // namespace

bool HasRecomputableActivation(const Graph& graph) {
  const Order eager = EagerOrder(graph);
  const RematOptions options;
  const Search search(graph, eager, options);
  for (int32_t b = 0; b < graph.num_buffers(); ++b) {
    if (search.droppable(BufferId(b))) return true;
  }
  return false;
}

RematResult Rematerialize(const Graph& graph, const Order& order,
                          const RematOptions& options, const Budget& budget) {
  Search search(graph, order, options);
  RematResult result;
  std::vector<char> dropped(static_cast<size_t>(graph.num_buffers()), 0);
  std::optional<Measurement> best = search.Measure(dropped);  // Always valid.
  ++result.measurements;
  auto spend = [&] {
    ++result.measurements;
    return budget.Spend() && !budget.OutOfTime();
  };
  bool out = false;
  while (best->timeline.peak_bytes > options.target_bytes && !out) {
    const std::vector<Search::Candidate> candidates = search.Candidates(*best, dropped);
    std::optional<Measurement> chosen;
    std::vector<char> chosen_dropped;
    double chosen_score = 0;
    bool chosen_lower = false;
    for (size_t i = 0; i < candidates.size() && !out; ++i) {
      // Past the first few, only until one helps.
      if (chosen && i >= static_cast<size_t>(options.measured_per_round)) break;
      std::vector<char> trial = dropped;
      for (BufferId b : candidates[i].drop) trial[b.index()] = 1;
      std::optional<Measurement> m = search.Measure(trial);
      out = !spend();
      // Better: a lower peak, or the same peak with fewer bytes above the target;
      // scored by bytes gained per unit of added compute, a lower peak first.
      if (!m || m->timeline.peak_bytes > best->timeline.peak_bytes ||
          (m->timeline.peak_bytes == best->timeline.peak_bytes &&
           m->excess >= best->excess))
        continue;
      const double cost = static_cast<double>(m->added_cost - best->added_cost + 1);
      const bool lower = m->timeline.peak_bytes < best->timeline.peak_bytes;
      const double score =
          static_cast<double>(lower ? best->timeline.peak_bytes - m->timeline.peak_bytes
                                    : best->excess - m->excess) /
          cost;
      if (!chosen || (lower && !chosen_lower) ||
          (lower == chosen_lower && score > chosen_score)) {
        chosen_lower = lower;
        chosen = std::move(m);
        chosen_dropped = std::move(trial);
        chosen_score = score;
      }
    }
    if (!chosen) break;
    dropped = std::move(chosen_dropped);
    best = std::move(chosen);
  }
  // Pruning: give back what the target does not need, dearest first.
  if (best->timeline.peak_bytes <= options.target_bytes) {
    std::vector<Recomputation> by_cost = best->recompute;
    std::stable_sort(by_cost.begin(), by_cost.end(),
                     [&](const Recomputation& a, const Recomputation& b) {
                       return search.cost(a.op) > search.cost(b.op);
                     });
    for (const Recomputation& r : by_cost) {
      if (out) break;
      std::vector<char> trial = dropped;
      for (BufferId b : graph.op(r.op).allocates) trial[b.index()] = 0;
      std::optional<Measurement> m = search.Measure(trial);
      out = !spend();
      if (m && m->timeline.peak_bytes <= options.target_bytes) {
        dropped = std::move(trial);
        best = std::move(m);
      }
    }
  }
  result.recompute = std::move(best->recompute);
  result.order = std::move(best->order);
  result.peak_bytes = best->timeline.peak_bytes;
  result.added_cost = best->added_cost;
  result.reached = result.peak_bytes <= options.target_bytes;
  result.stopped_by = out ? budget.Reached() : Budget::Limit::kNone;
  return result;
}

}  // namespace olla
