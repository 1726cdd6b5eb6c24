#include "olla/remat/remat_search.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <tuple>
#include <utility>

#include "olla/analysis/lifetimes.h"
#include "olla/analysis/timeline.h"
#include "olla/analysis/topology.h"
#include "olla/plan/expand.h"
#include "olla/plan/recompute_rules.h"
#include "olla/remat/cost.h"
#include "olla/remat/recomputable.h"
#include "olla/remat/recompute_floor.h"
#include "olla/remat/repeated_blocks.h"

namespace olla {
namespace {

// The share of the search's budget for the floor of the activations' plans.
constexpr double kFloorShare = 0.05;

// What the search does with a buffer: keeps it, drops it after its early uses with
// one copy made again for every late reader (recomputable.h: an activation's backward
// readers; a gradient's readers past its widest gap), or one for each group its cuts
// part,
// or with a copy for each reader (readers first needed at one place, the runs of a
// chain that one backward op waits for, share one: never two copies made for one
// place, and no chain of them doubling at every residual connection).
constexpr char kKept = 0;
constexpr char kOneCopy = 1;
constexpr char kCopyPerReader = 2;

// The search's choice for every buffer (by index): its mode, and for a buffer dropped
// with one copy, where its readers part into runs (cuts: positions in the given order,
// ascending; the readers needed up to the first read one copy, those up to the second
// another, and so on; none: one run). A cut lets a chain that makes a later buffer
// again run apart from the copies the backward pass reads much later, so that none
// waits across the steps in between; cuts at every layer of a backward pass make a
// layer's input again for each (checkpoints of checkpoints).
//
// A buffer dropped with one copy may also have its own chains: each run that reads it
// gets a run of its own, and each of those its own runs of everything it reads (no copy
// shared between the chains). A residual add made again after a block's MLP, where the
// MLP's own run reads the same input first, then waits for none of its copies across
// the MLP (swin_t's first stage: the attention made once for the MLP, once more for
// the add, while a 154 MB gradient waits).
struct Choice {
  std::vector<char> mode;
  std::vector<std::vector<int32_t>> cuts;
  std::vector<char> own_chains;

  explicit Choice(int32_t buffers)
      : mode(static_cast<size_t>(buffers), kKept),
        cuts(static_cast<size_t>(buffers)),
        own_chains(static_cast<size_t>(buffers), 0) {}
  // A new mode for `b`, uncut, its chains shared.
  void Set(BufferId b, char new_mode) {
    mode[b.index()] = new_mode;
    cuts[b.index()].clear();
    own_chains[b.index()] = 0;
  }
  void Keep(BufferId b) { Set(b, kKept); }
  bool IsCutAt(BufferId b, int32_t position) const {
    const std::vector<int32_t>& at = cuts[b.index()];
    return std::binary_search(at.begin(), at.end(), position);
  }
  void CutAt(BufferId b, int32_t position) {
    std::vector<int32_t>& at = cuts[b.index()];
    const auto place = std::lower_bound(at.begin(), at.end(), position);
    if (place == at.end() || *place != position) at.insert(place, position);
  }
};

template <typename T>
void Unique(std::vector<T>& values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
}

// One set of dropped buffers, expanded and measured.
struct Measurement {
  std::vector<Recomputation> recompute;
  // Per run: the first position in the given order that reads its copies.
  std::vector<int32_t> needed_at;
  std::optional<ExpandedGraph> expanded;
  Order order;
  Lifetimes lifetimes;
  MemoryTimeline timeline;
  int64_t excess = 0;  // Bytes above the aim, summed over the steps.
  int64_t added_cost = 0;
  // The caller's layout's verdict (RematOptions::lays_out), once asked.
  std::optional<bool> laid_out;
};

// Whether `m` is a result for `target`: it peaks within it, and no layout refused it.
bool Reaches(const Measurement& m, int64_t target) {
  return m.timeline.peak_bytes <= target && m.laid_out != false;
}

class Search {
 public:
  // `buffers`: those of one reach (recomputable.h); `blocks`: FindRepeatedBlocks's.
  Search(const Graph& graph, const Order& order, const RematOptions& options,
         RecomputableBuffers buffers, const RepeatedBlocks& blocks)
      : graph_(graph),
        order_(order),
        options_(options),
        buffers_(std::move(buffers)),
        blocks_(blocks) {
    cost_.resize(static_cast<size_t>(graph.num_ops()));
    for (int32_t o = 0; o < graph.num_ops(); ++o)
      cost_[static_cast<size_t>(o)] = OpCost(graph, OpId(o));
    position_.resize(static_cast<size_t>(graph.num_ops()));
    for (size_t i = 0; i < order.ops.size(); ++i)
      position_[order.ops[i].index()] = static_cast<int32_t>(i);
  }

  // Where `op` runs in the given order.
  int32_t position(OpId op) const { return position_[op.index()]; }

  // The readers its copies serve when it is dropped (recomputable.h), in eager order.
  const std::vector<OpId>& LateUsers(BufferId b) const {
    return buffers_.late_users[b.index()];
  }

  // Its producer may run again to make a copy (for a recomputation that reads it).
  bool copyable(BufferId b) const { return buffers_.copyable[b.index()]; }
  // Copyable, and with late readers: dropping it can free bytes.
  bool droppable(BufferId b) const { return buffers_.droppable[b.index()]; }
  const std::vector<char>& droppable_buffers() const { return buffers_.droppable; }
  int64_t cost(OpId op) const { return cost_[op.index()]; }
  bool MadeForward(BufferId b) const {
    return graph_.op(graph_.producer(b)).phase == Phase::kForward;
  }
  bool has_repeated_blocks() const { return !blocks_.classes.empty(); }

  // Calls `visit` on `b`, and with `tied` on the buffers at its place in the blocks
  // that repeat its block (repeated_blocks.h) too.
  template <typename Visit>
  void ForEachTwin(BufferId b, bool tied, Visit visit) const {
    const int32_t c = tied ? blocks_.class_of[b.index()] : -1;
    if (c < 0) {
      visit(b);
      return;
    }
    for (BufferId twin : blocks_.classes[static_cast<size_t>(c)]) visit(twin);
  }

  // The first position in the given order that reads a run's copies: its earliest
  // served op, or the earliest place a run it feeds is needed (`needed_at`, per run).
  int32_t FirstNeeded(const std::vector<OpId>& serves, const std::vector<int32_t>& feeds,
                      const std::vector<int32_t>& needed_at) const {
    int32_t first = std::numeric_limits<int32_t>::max();
    for (OpId user : serves) first = std::min(first, position(user));
    for (int32_t run : feeds)
      first = std::min(first, needed_at[static_cast<size_t>(run)]);
    return first;
  }

  // Every copyable activation dropped with one copy, cut where each repeated block's
  // backward pass ends (the last place a backward op reads an output of the block):
  // each block's backward pass makes again, from what no drop frees, all that it
  // reads (O(L²) runs for L blocks). The least memory cuts reach at one per block, at
  // the most compute: a start from which the descent lowers the peak further and the
  // pruning gives back what the target does not need, where a descent from nothing
  // dropped stops with the checkpoints of several layers live at once.
  Choice CheckpointEveryBlock() const {
    std::vector<int32_t> cuts;
    for (const std::vector<OpId>& block : blocks_.members) {
      int32_t end = -1;
      for (OpId op : block) {
        for (BufferId b : graph_.op(op).allocates) {
          for (OpId user : LateUsers(b)) end = std::max(end, position(user));
        }
      }
      if (end >= 0) cuts.push_back(end);
    }
    Unique(cuts);
    Choice choice(graph_.num_buffers());
    for (int32_t b = 0; b < graph_.num_buffers(); ++b) {
      if (!copyable(BufferId(b)) || !MadeForward(BufferId(b))) continue;
      choice.mode[static_cast<size_t>(b)] = kOneCopy;
      choice.cuts[static_cast<size_t>(b)] = cuts;
    }
    return choice;
  }

  // Every droppable buffer dropped with a copy for each reader.
  Choice CopyEveryDroppablePerReader() const {
    Choice choice(graph_.num_buffers());
    for (int32_t b = 0; b < graph_.num_buffers(); ++b) {
      if (droppable(BufferId(b))) choice.mode[static_cast<size_t>(b)] = kCopyPerReader;
    }
    return choice;
  }

  // The recomputations that `choice` makes (a mode per buffer: kKept, kOneCopy or
  // kCopyPerReader, its producer's mode when any of its outputs asks for a copy per
  // reader; its outputs' cuts together). A run of an op serves the late users of
  // its dropped outputs and feeds the runs that read them: one run for all of them, one
  // for each group of them its cuts part (by where each is first needed), or one for
  // each place one is first needed. An op whose copies nothing would read runs no more
  // (a chain's input whose reader was given back).
  // `needed_at`: per run, the first position in the given order that reads its copies.
  // Nullopt when the runs of chains of their own outnumber the graph's ops (each own
  // chain doubles what it reads: nested ones would double at every level).
  std::optional<std::vector<Recomputation>> Recomputations(
      const Choice& choice, std::vector<int32_t>& needed_at) const {
    // From the last op back (ids are topological, and a run reads only earlier ops'
    // outputs), so that every run that reads an op's copies exists when its are made.
    std::vector<Recomputation> runs;
    needed_at.clear();
    // Per run: its chain (0: shared; else one run reading a buffer with its own chains,
    // plus one: what makes what it reads runs apart from every other chain's runs).
    std::vector<int32_t> chain_of;
    int32_t own_runs = 0;
    std::vector<std::vector<int32_t>> runs_of(static_cast<size_t>(graph_.num_ops()));
    for (int32_t o = graph_.num_ops() - 1; o >= 0; --o) {
      const Op& op = graph_.op(OpId(o));
      std::vector<OpId> serves;
      std::vector<int32_t> feeds;
      std::vector<int32_t> own;  // The runs that read an output with its own chains.
      bool per_reader = false;
      std::vector<int32_t> cuts;
      for (BufferId b : op.allocates) {
        const char mode = choice.mode[b.index()];
        if (mode == kKept) continue;
        per_reader = per_reader || mode == kCopyPerReader;
        const std::vector<int32_t>& at = choice.cuts[b.index()];
        cuts.insert(cuts.end(), at.begin(), at.end());
        for (OpId user : LateUsers(b)) serves.push_back(user);
        for (OpId user : graph_.users(b)) {
          for (int32_t run : runs_of[user.index()]) {
            feeds.push_back(run);
            if (choice.own_chains[b.index()]) own.push_back(run);
          }
        }
      }
      Unique(serves);
      Unique(feeds);
      Unique(own);
      auto add = [&](std::vector<OpId> s, std::vector<int32_t> f, int32_t chain) {
        const int32_t first = FirstNeeded(s, f, needed_at);
        runs_of[static_cast<size_t>(o)].push_back(static_cast<int32_t>(runs.size()));
        runs.push_back({OpId(o), std::move(s), std::move(f), 0, {}});
        needed_at.push_back(first);
        chain_of.push_back(chain);
        if (chain != 0) ++own_runs;
      };
      // One run for each group of readers: those its cuts part (by where each is first
      // needed; without cuts, one group), or for a copy per reader those first needed
      // at one place. The latest group first: the runs of one op end up in reader
      // order.
      Unique(cuts);
      auto group = [&](int32_t first_needed) {
        return per_reader ? first_needed
                          : static_cast<int32_t>(
                                std::lower_bound(cuts.begin(), cuts.end(), first_needed) -
                                cuts.begin());
      };
      // By (group, chain).
      std::map<std::pair<int32_t, int32_t>,
               std::pair<std::vector<OpId>, std::vector<int32_t>>, std::greater<>>
          groups;
      for (OpId user : serves) groups[{group(position(user)), 0}].first.push_back(user);
      for (int32_t run : feeds) {
        const int32_t chain = std::binary_search(own.begin(), own.end(), run)
                                  ? run + 1
                                  : chain_of[static_cast<size_t>(run)];
        groups[{group(needed_at[static_cast<size_t>(run)]), chain}].second.push_back(run);
      }
      for (auto& [key, readers] : groups)
        add(std::move(readers.first), std::move(readers.second), key.second);
      if (own_runs > graph_.num_ops()) return std::nullopt;
    }
    // Made last op first; run in op order: index i becomes last - i.
    std::reverse(runs.begin(), runs.end());
    std::reverse(needed_at.begin(), needed_at.end());
    const auto last = static_cast<int32_t>(runs.size()) - 1;
    for (Recomputation& r : runs) {
      for (int32_t& j : r.feeds) j = last - j;
      std::sort(r.feeds.begin(), r.feeds.end());
    }
    AssignRecomputeIds(graph_, runs);
    return runs;
  }

  // Expands, orders (each recomputation just before its first reader in the given
  // order) and measures; nullopt when the expansion or its order is invalid.
  std::optional<Measurement> Measure(const Choice& choice) const {
    Measurement m;
    std::optional<std::vector<Recomputation>> runs = Recomputations(choice, m.needed_at);
    if (!runs) return std::nullopt;
    m.recompute = std::move(*runs);
    StatusOr<ExpandedGraph> expanded = ExpandGraph(graph_, m.recompute);
    if (!expanded.ok()) return std::nullopt;
    m.expanded = std::move(expanded).value();
    const Graph& g = m.expanded->graph;
    std::vector<char> emitted(static_cast<size_t>(g.num_ops()), 0);
    struct Frame {
      OpId op;
      std::vector<OpId> before;  // Its pending predecessors, longest chain first.
      size_t next = 0;
    };
    std::vector<Frame> stack;
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
    // The longest chain of recomputations each op waits for: an op's pending
    // predecessors run the longest chain first, so that a run with fewer of its own
    // runs just before the reader and its copy waits for no other chain.
    std::vector<int32_t> chain(static_cast<size_t>(g.num_ops()), 0);
    for (int32_t id = 0; id < g.num_ops(); ++id) {  // Expanded ids are topological.
      for (OpId before : g.predecessors(OpId(id))) {
        if (e.is_recomputation(before))
          chain[static_cast<size_t>(id)] =
              std::max(chain[static_cast<size_t>(id)], chain[before.index()] + 1);
      }
    }
    auto pending = [&](OpId op) {
      std::vector<OpId> before;
      for (OpId p : g.predecessors(op)) {
        if (!emitted[p.index()] && (e.is_recomputation(p) || deferred[p.index()]))
          before.push_back(p);
      }
      std::stable_sort(before.begin(), before.end(), [&](OpId x, OpId y) {
        return chain[x.index()] > chain[y.index()];
      });
      return before;
    };
    auto emit_with_predecessors = [&](OpId op) {
      // Depth first over the recomputations (and waiting ops) it needs, theirs first.
      stack.push_back({op, pending(op), 0});
      while (!stack.empty()) {
        Frame& frame = stack.back();
        if (frame.next < frame.before.size()) {
          const OpId before = frame.before[frame.next++];
          if (!emitted[before.index()]) stack.push_back({before, pending(before), 0});
          continue;
        }
        const OpId done = frame.op;
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
    const int64_t aim = options_.aim_bytes > 0
                            ? std::min(options_.aim_bytes, options_.target_bytes)
                            : options_.target_bytes;
    for (int64_t live : m.timeline.live_bytes)
      m.excess += std::max<int64_t>(0, live - aim);
    for (const Recomputation& r : m.recompute) m.added_cost += cost(r.op);
    return m;
  }

  // `b` and the dropped buffers a run of its producer reads, transitively.
  std::vector<BufferId> DroppedChain(BufferId b, const Choice& choice) const {
    std::vector<char> seen(static_cast<size_t>(graph_.num_buffers()), 0);
    std::vector<BufferId> chain = {b};
    seen[b.index()] = 1;
    for (size_t next = 0; next < chain.size(); ++next) {
      for (BufferId input : graph_.op(graph_.producer(chain[next])).uses) {
        if (seen[input.index()] || choice.mode[input.index()] == kKept) continue;
        seen[input.index()] = 1;
        chain.push_back(input);
      }
    }
    return chain;
  }
  // Of `source`'s dropped chain, the buffers dropped with one copy, chains shared, that
  // two of the chain's producers read.
  std::vector<BufferId> ReadTwiceIn(BufferId source, const Choice& choice) const {
    const std::vector<BufferId> chain = DroppedChain(source, choice);
    std::vector<int32_t> reads(static_cast<size_t>(graph_.num_buffers()), 0);
    for (BufferId b : chain) {
      std::vector<BufferId> inputs = graph_.op(graph_.producer(b)).uses;
      Unique(inputs);
      for (BufferId input : inputs) ++reads[input.index()];
    }
    std::vector<BufferId> twice;
    for (BufferId b : chain) {
      if (reads[b.index()] >= 2 && choice.mode[b.index()] == kOneCopy &&
          !choice.own_chains[b.index()])
        twice.push_back(b);
    }
    return twice;
  }

  // A way to lower the peak: buffers to drop (one copy), dropped buffers to copy for
  // each reader, and cuts to add to buffers dropped with one copy, with an estimate of
  // the bytes it frees at the peak step and of the compute it adds.
  struct Candidate {
    std::vector<BufferId> drop;
    std::vector<BufferId> split;
    std::vector<std::pair<BufferId, int32_t>> cut;
    int64_t freed = 0;
    int64_t added = 0;
    bool last_resort = false;  // Measured only when no other candidate helps.
    std::vector<BufferId> own_chains = {};  // Dropped with one copy: their own chains.
  };

  // For each droppable buffer live at the peak step and not used there: dropping it
  // alone, dropping it with the droppable inputs its recomputation would bring back
  // to life across the step (transitively), and, as a last resort, dropping it with
  // those and cutting after its last late reader every copy its recomputation
  // reads (transitively), so that the runs that make it again are not the ones the
  // later backward ops read, and no copy waits between the two. For each copy live
  // there and not used there: a cut at the step (a run before, another after, besides
  // its other cuts, a last resort for a copy cut already; and so for the copies its run
  // reads, transitively, lest they wait across the step instead; as last resorts,
  // that chain cut off again where the copy is next read, with a copy two of its runs
  // read given chains of their own), and a copy for each reader of its buffer
  // instead, so that none waits across it.
  // The best estimated bytes freed per unit of compute first; those that free nothing
  // by the estimate are left out.
  std::vector<Candidate> Candidates(const Measurement& m, const Choice& choice) const {
    const std::vector<char>& dropped = choice.mode;
    const Graph& g = m.expanded->graph;
    const int32_t step = m.timeline.peak_step;
    // The given order's position of the first original op at or after the step.
    int32_t step_position = static_cast<int32_t>(order_.ops.size());
    for (size_t i = static_cast<size_t>(step); i < m.order.ops.size(); ++i) {
      const OpId op = m.order.ops[i];
      if (!m.expanded->is_recomputation(op)) {
        step_position = position(m.expanded->source_op[op.index()]);
        break;
      }
    }
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
    // Cuts at `position` every copy of a buffer dropped with one copy, not yet cut
    // there, that `reads` names, and the ones their runs read (transitively).
    auto cut_copies_read = [&](std::vector<BufferId> reads, int32_t position,
                               Candidate& c) {
      std::vector<char> seen(static_cast<size_t>(graph_.num_buffers()), 0);
      for (size_t next = 0; next < reads.size(); ++next) {
        const BufferId input = reads[next];
        if (seen[input.index()] || dropped[input.index()] != kOneCopy ||
            choice.IsCutAt(input, position))
          continue;
        seen[input.index()] = 1;
        // A copy cut already (a third run or more): a last resort.
        if (!choice.cuts[input.index()].empty()) c.last_resort = true;
        c.cut.push_back({input, position});
        const OpId p = graph_.producer(input);
        c.added += cost(p);
        for (BufferId further : graph_.op(p).uses) reads.push_back(further);
      }
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
                      {},
                      {},
                      graph_.buffer(id).size,
                      recomputed[producer.index()] ? 0 : cost(producer)};
      // A gradient made again (its backward op run twice): a last resort, tried when
      // no activation's drop helps, lest the descent spend its rounds on the backward
      // pass where the forward pass's drops reach lower (Checkmate's ResNet50).
      alone.last_resort = !MadeForward(id);
      for (BufferId input : graph_.op(producer).uses) {
        if (dead_at_step(input)) alone.freed -= graph_.buffer(input).size;
      }
      // With its chain: inputs dead at the step that can be dropped are recomputed too.
      Candidate chain{{id}, {}, {}, graph_.buffer(id).size, alone.added};
      chain.last_resort = alone.last_resort;
      std::vector<char> in_chain(static_cast<size_t>(graph_.num_buffers()), 0);
      in_chain[id.index()] = 1;
      bool longer = false;
      // A gradient's chain runs back through the backward pass to the loss and on
      // through the forward pass, each level dearer (the loss's own gradient, 4 bytes,
      // made again from the whole forward pass): for a gradient, the chain cut at each
      // level is a candidate too, the inputs past it kept alive.
      auto rank_cut_at = [&](size_t end) {
        Candidate shorter = chain;
        for (size_t i = end; i < shorter.drop.size(); ++i) {
          const BufferId kept = shorter.drop[i];
          shorter.freed -= graph_.buffer(kept).size;
          if (!recomputed[graph_.producer(kept).index()])
            shorter.added -= cost(graph_.producer(kept));
        }
        shorter.drop.resize(end);
        rank(std::move(shorter));
      };
      size_t level_end = 1;  // chain.drop[0, level_end): the levels expanded so far.
      for (size_t next = 0; next < chain.drop.size(); ++next) {
        if (next == level_end) {
          if (!MadeForward(id) && next < chain.drop.size()) rank_cut_at(next);
          level_end = chain.drop.size();
        }
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
      // With its chain, and every copy the chain reads cut apart from the chain's run:
      // after its last late reader (an activation: made once for it, once more for
      // the later backward ops), or just before its first (a gradient read again
      // where a residual connection joins: the copies earlier backward ops read are
      // made apart from the run that makes it again there, and none waits for it).
      int32_t first_reader = std::numeric_limits<int32_t>::max();
      int32_t last_reader = -1;
      for (OpId user : LateUsers(id)) {
        first_reader = std::min(first_reader, position(user));
        last_reader = std::max(last_reader, position(user));
      }
      std::vector<int32_t> apart_at = {last_reader};
      if (!MadeForward(id) && first_reader > 0) apart_at.push_back(first_reader - 1);
      for (const int32_t cut_at : apart_at) {
        Candidate apart = chain;
        std::vector<BufferId> reads;
        for (BufferId link : apart.drop) {
          const std::vector<BufferId>& uses = graph_.op(graph_.producer(link)).uses;
          reads.insert(reads.end(), uses.begin(), uses.end());
          if (link != id) apart.cut.push_back({link, cut_at});
        }
        cut_copies_read(std::move(reads), cut_at, apart);
        apart.last_resort = true;
        if (!apart.cut.empty()) rank(std::move(apart));
      }
      // Alone, a copy for each late reader (none waits between two of them): a
      // last resort, tried when nothing else helps.
      const auto readers = static_cast<int64_t>(LateUsers(id).size());
      if (readers > 1) {
        Candidate each = alone;
        each.split = std::move(each.drop);
        each.added = alone.added * readers;
        each.last_resort = true;
        rank(std::move(each));
      }
      rank(std::move(alone));
      if (longer) rank(std::move(chain));
    }
    for (int32_t b = graph_.num_buffers(); b < g.num_buffers(); ++b) {
      const BufferId copy(b);
      if (!m.lifetimes[copy].Contains(step) || used_at_step(copy)) continue;
      const BufferId source = m.expanded->source_buffer[copy.index()];
      if (dropped[source.index()] != kOneCopy) continue;
      const int64_t run = cost(graph_.producer(source));
      if (step_position > 0) {
        Candidate cut{{}, {}, {}, g.buffer(copy).size, 0};
        cut_copies_read({source}, step_position - 1, cut);
        // As last resorts, the chain cut off after the step too, where the copy is
        // next read (its runs there serve it alone; the later readers of what it
        // reads get runs of their own, later, else those wait from the step on),
        // with a copy two of its runs read given chains of their own, so that it
        // waits across neither's (a residual add's input across its branch). The
        // chain cut off alone, without chains of their own, led Checkmate's ResNet50
        // astray: 11.3 % of its peak fitted, against 10.8 %, the order's floor.
        int32_t read_after = std::numeric_limits<int32_t>::max();
        for (OpId user : LateUsers(source)) {
          if (position(user) > step_position)
            read_after = std::min(read_after, position(user));
        }
        const std::vector<BufferId> shared_in_chain = ReadTwiceIn(source, choice);
        Candidate closed{{}, {}, {}, g.buffer(copy).size, 0};
        closed.last_resort = true;
        // The runs the op at the step needs, with those before it.
        if (!shared_in_chain.empty() && read_after != std::numeric_limits<int32_t>::max())
          cut_copies_read({source}, step_position, closed);
        if (closed.cut.size() > 1) {
          const std::vector<std::pair<BufferId, int32_t>> chain = closed.cut;
          for (const auto& [link, unused] : chain) {
            if (link == source || choice.IsCutAt(link, read_after)) continue;
            closed.cut.push_back({link, read_after});
            closed.added += cost(graph_.producer(link));
          }
          for (BufferId shared : shared_in_chain) {
            Candidate apart = closed;
            apart.own_chains = {shared};
            for (BufferId link : DroppedChain(shared, choice))
              apart.added += cost(graph_.producer(link));
            rank(std::move(apart));
          }
        }
        if (!cut.cut.empty()) rank(std::move(cut));
      }
      rank({{}, {source}, {}, g.buffer(copy).size, run});
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
      return std::tie(a.second.last_resort, a.first) <
             std::tie(b.second.last_resort, b.first);
    });
    std::vector<Candidate> candidates;
    for (auto& entry : ranked) candidates.push_back(std::move(entry.second));
    return candidates;
  }

 private:
  const Graph& graph_;
  const Order& order_;
  const RematOptions& options_;
  RecomputableBuffers buffers_;
  const RepeatedBlocks& blocks_;
  std::vector<int64_t> cost_;
  std::vector<int32_t> position_;  // Of each op in order_.
};

// A choice and its measurement: one point of the search.
struct State {
  Choice choice;
  Measurement m;
};

// Whether `a` is a better result than `b` for `target`: reaching it first, then the
// least added compute (then the lower peak); short of it, the lower peak, then fewer
// bytes above the target, then less compute.
bool Better(const Measurement& a, const Measurement& b, int64_t target) {
  const bool a_reached = Reaches(a, target);
  const bool b_reached = Reaches(b, target);
  if (a_reached != b_reached) return a_reached;
  if (a_reached) {
    return a.added_cost != b.added_cost ? a.added_cost < b.added_cost
                                        : a.timeline.peak_bytes < b.timeline.peak_bytes;
  }
  if (a.timeline.peak_bytes != b.timeline.peak_bytes)
    return a.timeline.peak_bytes < b.timeline.peak_bytes;
  return a.excess != b.excess ? a.excess < b.excess : a.added_cost < b.added_cost;
}

// The moves of the search over one budget: the greedy descent, the pruning, and the
// neighbourhoods the large-neighbourhood search restarts the descent from.
class Walk {
 public:
  static constexpr size_t kMaxGivenBack = 8;

  Walk(const Graph& graph, const Search& search, const RematOptions& options,
       const Budget& budget)
      : graph_(graph), search_(search), options_(options), budget_(budget) {}

  int32_t measurements() const { return measurements_; }
  // Measurements until one reached the target; 0 while none has.
  int32_t reached_after() const { return reached_after_; }
  bool out() const { return out_; }

  // Every measurement spends one unit of work.
  std::optional<State> Measure(Choice choice) {
    std::optional<Measurement> m = search_.Measure(choice);
    ++measurements_;
    out_ = out_ || !budget_.Spend() || budget_.OutOfTime();
    if (!m) return std::nullopt;
    if (m->timeline.peak_bytes <= options_.target_bytes && reached_after_ == 0)
      reached_after_ = measurements_;
    return State{std::move(choice), std::move(*m)};
  }

  // Greedy rounds from `state` until the target is reached, no candidate helps, or the
  // budget ends. With `noise`, each measured candidate's score is scaled by a random
  // factor in [1/2, 3/2), so that restarts take other paths than the first descent.
  // `tied`: each move is made in every block that repeats the block it is in.
  void Descend(State& state, std::mt19937_64* noise, bool tied = false) {
    // A restart measures fewer: its noise, not its breadth, finds other paths.
    const auto few = static_cast<size_t>(noise ? std::min(options_.measured_per_round, 4)
                                               : options_.measured_per_round);
    while (state.m.timeline.peak_bytes > options_.target_bytes && !out_) {
      const std::vector<Search::Candidate> candidates =
          search_.Candidates(state.m, state.choice);
      std::optional<State> chosen;
      double chosen_score = 0;
      bool chosen_lower = false;
      for (size_t i = 0; i < candidates.size() && !out_; ++i) {
        // Past the first few, only until one helps.
        if (chosen && (i >= few || candidates[i].last_resort)) break;
        // A cut's position is its block's own: not made in every block at once.
        if (tied && !candidates[i].cut.empty()) continue;
        Choice trial = state.choice;
        Apply(candidates[i], trial, tied);
        std::optional<State> next = Measure(std::move(trial));
        // Better: a lower peak, or the same peak with fewer bytes above the target;
        // scored by bytes gained per unit of added compute, a lower peak first.
        if (!next) continue;
        const Measurement& m = next->m;
        const Measurement& now = state.m;
        if (m.timeline.peak_bytes > now.timeline.peak_bytes ||
            (m.timeline.peak_bytes == now.timeline.peak_bytes && m.excess >= now.excess))
          continue;
        const double cost = static_cast<double>(m.added_cost - now.added_cost + 1);
        const bool lower = m.timeline.peak_bytes < now.timeline.peak_bytes;
        double score =
            static_cast<double>(lower ? now.timeline.peak_bytes - m.timeline.peak_bytes
                                      : now.excess - m.excess) /
            cost;
        if (noise) score *= 0.5 + static_cast<double>((*noise)() % 1024) / 1024.0;
        if (!chosen || (lower && !chosen_lower) ||
            (lower == chosen_lower && score > chosen_score)) {
          chosen_lower = lower;
          chosen = std::move(next);
          chosen_score = score;
        }
      }
      if (!chosen) break;
      state = std::move(*chosen);
    }
  }

  // Gives back what the target does not need, dearest op first: its runs for each
  // reader (one run serving them all, two parted where one is first needed, or one
  // for each such place, parted by cuts, instead), its chains of their own (shared
  // again), its cuts (all, then one at a time), then its recomputation. Only the ops
  // whose buffers `since` chooses otherwise, when given (what a restart changed), and
  // those run for each reader (a restart may have made one of their readers' runs,
  // and so their cuts, cheaper).
  // `tied`: given back in every block that repeats the op's block at once.
  void Prune(State& state, const Choice* since = nullptr, bool tied = false) {
    if (state.m.timeline.peak_bytes > options_.target_bytes) return;
    std::vector<std::pair<int64_t, OpId>> by_cost;  // (-(cost of its runs), op)
    auto touched = [&](OpId op) {
      const std::vector<BufferId>& outputs = graph_.op(op).allocates;
      return !since || std::any_of(outputs.begin(), outputs.end(), [&](BufferId b) {
        return since->mode[b.index()] != state.choice.mode[b.index()] ||
               since->cuts[b.index()] != state.choice.cuts[b.index()] ||
               since->own_chains[b.index()] != state.choice.own_chains[b.index()] ||
               state.choice.mode[b.index()] == kCopyPerReader;
      });
    };
    for (const Recomputation& r : state.m.recompute) {
      if (!touched(r.op)) continue;
      if (!by_cost.empty() && by_cost.back().second == r.op)
        by_cost.back().first -= search_.cost(r.op);
      else
        by_cost.push_back({-search_.cost(r.op), r.op});
    }
    std::stable_sort(by_cost.begin(), by_cost.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    // The buffers of `op` (and their twins) that `give_back` changes in a trial.
    auto try_with = [&](OpId op, auto give_back) {
      Choice trial = state.choice;
      bool changed = false;
      for (BufferId b : graph_.op(op).allocates) {
        search_.ForEachTwin(
            b, tied, [&](BufferId twin) { changed = give_back(trial, twin) || changed; });
      }
      if (!changed || out_) return;
      std::optional<State> next = Measure(std::move(trial));
      if (next && next->m.timeline.peak_bytes <= options_.target_bytes)
        state = std::move(*next);
    };
    auto mode = [](char from, char to) {
      return [from, to](Choice& c, BufferId b) {
        if (c.mode[b.index()] != from) return false;
        c.Set(b, to);
        return true;
      };
    };
    auto share_chains = [](Choice& c, BufferId b) {
      if (!c.own_chains[b.index()]) return false;
      c.own_chains[b.index()] = 0;
      return true;
    };
    auto uncut = [](Choice& c, BufferId b) {
      if (c.cuts[b.index()].empty()) return false;
      c.cuts[b.index()].clear();
      return true;
    };
    auto uncut_at = [](int32_t position) {
      return [position](Choice& c, BufferId b) {
        std::vector<int32_t>& at = c.cuts[b.index()];
        return std::erase(at, position) > 0;
      };
    };
    // Its runs for each reader as one for each group of them parted at `positions`
    // (cut positions are the block's own: not when given back in every block at once).
    auto cut_at = [](std::vector<int32_t> positions) {
      return [positions](Choice& c, BufferId b) {
        if (c.mode[b.index()] != kCopyPerReader) return false;
        c.mode[b.index()] = kOneCopy;
        c.cuts[b.index()] = positions;
        return true;
      };
    };
    // Where the op's runs are first needed, but the last (past it: one run).
    auto parting_positions = [&](OpId op) {
      std::vector<int32_t> at;
      for (size_t r = 0; r < state.m.recompute.size(); ++r) {
        if (state.m.recompute[r].op == op) at.push_back(state.m.needed_at[r]);
      }
      Unique(at);
      if (!at.empty()) at.pop_back();
      return at;
    };
    auto cuts_of = [&](OpId op) {
      std::vector<int32_t> at;
      for (BufferId b : graph_.op(op).allocates) {
        const std::vector<int32_t>& cuts = state.choice.cuts[b.index()];
        at.insert(at.end(), cuts.begin(), cuts.end());
      }
      Unique(at);
      return at;
    };
    for (const auto& [minus_cost, op] : by_cost) {
      try_with(op, mode(kCopyPerReader, kOneCopy));
      try_with(op, mode(kCopyPerReader, kKept));
      if (!tied) {
        // Two runs, parted where one of them is first needed; else a run for each
        // place (then its cuts given back one by one, below).
        const std::vector<int32_t> parting = parting_positions(op);
        for (int32_t position : parting) try_with(op, cut_at({position}));
        if (parting.size() > 1) try_with(op, cut_at(parting));
      }
      try_with(op, share_chains);
      try_with(op, uncut);
      if (!tied) {
        for (int32_t position : cuts_of(op)) try_with(op, uncut_at(position));
      }
      try_with(op, mode(kOneCopy, kKept));
    }
  }

  // A neighbourhood of `choice` to descend from again, one of three kinds in turn:
  // up to half of the dropped buffers given back at random; a run of them, a third
  // long, given back (producers close in the graph, so the region around one peak);
  // never more than kMaxGivenBack, so that a restart costs a few rounds on any graph;
  // or one given back and one droppable buffer not dropped added (with one copy or a
  // copy per reader), at random.
  Choice Neighbour(const Choice& choice, int32_t round, std::mt19937_64& rng) const {
    std::vector<BufferId> in, out;
    for (int32_t b = 0; b < graph_.num_buffers(); ++b) {
      if (choice.mode[static_cast<size_t>(b)] != kKept)
        in.push_back(BufferId(b));
      else if (search_.droppable(BufferId(b)))
        out.push_back(BufferId(b));
    }
    Choice next = choice;
    const int kind = in.empty() ? 2 : round % 3;
    if (kind == 0) {
      for (size_t given = 0; given < kMaxGivenBack && given < (in.size() + 1) / 2;
           ++given) {
        const BufferId b = in[rng() % in.size()];
        if (next.mode[b.index()] == kCopyPerReader && rng() % 2)
          next.mode[b.index()] = kOneCopy;  // With the cuts it had before its split.
        else
          next.Keep(b);
      }
    } else if (kind == 1) {
      const size_t length = std::clamp<size_t>(in.size() / 3, 1, kMaxGivenBack);
      const size_t first = rng() % in.size();
      for (size_t i = first; i < std::min(in.size(), first + length); ++i)
        next.Keep(in[i]);
    } else {
      if (!in.empty()) next.Keep(in[rng() % in.size()]);
      if (!out.empty())
        next.Set(out[rng() % out.size()], rng() % 2 ? kOneCopy : kCopyPerReader);
    }
    return next;
  }

  // Counts the measurements of a walk over a part of this one's budget as this one's
  // (and when it reached its target, as reaching this one's: unless that lies above).
  void Add(const Walk& part) {
    if (reached_after_ == 0 && part.reached_after_ > 0 &&
        part.options_.target_bytes <= options_.target_bytes)
      reached_after_ = measurements_ + part.reached_after_;
    measurements_ += part.measurements_;
    out_ = out_ || budget_.Exhausted();
  }

  // Makes the candidate's move on `choice`; `tied`: its drops and splits on the twins
  // of its buffers too (those in the state the move expects: kept to drop, one copy to
  // split).
  void Apply(const Search::Candidate& candidate, Choice& choice, bool tied) const {
    for (BufferId b : candidate.drop) {
      choice.Set(b, kOneCopy);
      search_.ForEachTwin(b, tied, [&](BufferId twin) {
        if (choice.mode[twin.index()] == kKept && search_.copyable(twin))
          choice.Set(twin, kOneCopy);
      });
    }
    // A split keeps the buffer's cut (runs for each reader ignore it), for a restart
    // that gives the split back to find.
    for (BufferId b : candidate.split) {
      choice.mode[b.index()] = kCopyPerReader;
      search_.ForEachTwin(b, tied, [&](BufferId twin) {
        if (choice.mode[twin.index()] == kOneCopy)
          choice.mode[twin.index()] = kCopyPerReader;
      });
    }
    for (const auto& [b, position] : candidate.cut) choice.CutAt(b, position);
    for (BufferId b : candidate.own_chains) {
      if (choice.mode[b.index()] == kOneCopy) choice.own_chains[b.index()] = 1;
    }
  }

 private:
  const Graph& graph_;
  const Search& search_;
  const RematOptions& options_;
  const Budget& budget_;
  int32_t measurements_ = 0;
  int32_t reached_after_ = 0;
  bool out_ = false;
};

// The search over the buffers `search` may drop, from `start` (the header's steps): the
// tied descent where blocks repeat; short of the target, a descent from a checkpoint at
// every block too (`from_nothing` only: a later reach starts from the best of the one
// before, which had it); the descent block by block; the large-neighbourhood search.
// The best it found, the layout asked of it; its work counted in `total`.
State SearchReach(const Graph& graph, const Search& search, const RematOptions& given,
                  const Budget& budget, State start, bool from_nothing, Walk& total) {
  // The peak the descents and the pruning hold plans to (`options.target_bytes`): the
  // target, or below the peak of each plan the caller's layout refused while it has
  // accepted none. A result is a plan within the target (`given`) that the layout
  // accepts: a plan that peaks at the target can fail to be laid out within it at all
  // (Checkmate's ResNet50 at 11.25 % of its peak: 24 % above it by every placer
  // tried), where one with room below it is laid out at its peak; and one that peaks
  // between the two may be laid out where the refused one was not (vgg_unet at
  // 39.65 %, whose first plan peaked at the floor).
  const int64_t target = given.target_bytes;
  RematOptions options = given;
  Walk walk(graph, search, options, budget);
  // The layout is asked about a plan once, when it would become the result.
  auto unasked = [&](const State& s) {
    return options.lays_out && !s.m.laid_out && s.m.timeline.peak_bytes <= target;
  };
  bool accepted_one = false;
  auto ask = [&](State& s) {
    s.m.laid_out = options.lays_out(s.m.expanded->graph, s.m.order);
    if (*s.m.laid_out) {
      accepted_one = true;
      options.target_bytes = target;
    } else if (!accepted_one) {
      options.target_bytes = std::min(options.target_bytes, s.m.timeline.peak_bytes - 1);
    }
  };
  State best = std::move(start);
  // Repeated blocks decided together first: each move made in every block that repeats
  // it, so that the descent takes the rounds of one block (a plan soon, on any depth),
  // given back together and then block by block. Short of the target, a descent from
  // a checkpoint at every block, with half of what is left. Then the descent block by
  // block from nothing dropped, finer where it has the time: all that is left when the
  // first did not reach the target, half otherwise (the large-neighbourhood search
  // keeps the rest); the best of them that the layout accepts.
  const bool tie = search.has_repeated_blocks() && options.tie_repeated_blocks;
  State greedy = best;
  if (tie) {
    walk.Descend(best, nullptr, /*tied=*/true);
    walk.Prune(best, nullptr, /*tied=*/true);
    walk.Prune(best);
  }
  // Short of the target, also from the far end, with half of the budget, descending
  // and pruning back what the target does not need. Over the activations, where blocks
  // repeat and every move made in every block stopped short: from a checkpoint at
  // every block (O(L²) runs), whence the descent reaches peaks the one from nothing
  // dropped does not (vit_b_16 at batch 32 aiming at its floor of 252 MB: 271 MB
  // against 349 MB, remat_search_test.cc). Over the whole step: from every buffer it
  // may drop dropped with a copy for each reader, a plan near its least memory that no
  // single move from the activations' best leads to (remat_brute_force_test.cc).
  std::optional<State> far;
  if ((tie || !from_nothing) && best.m.timeline.peak_bytes > options.target_bytes) {
    const Budget half = budget.Split(0.5);
    Walk from_far(graph, search, options, half);
    far = from_far.Measure(from_nothing ? search.CheckpointEveryBlock()
                                        : search.CopyEveryDroppablePerReader());
    if (far) {
      from_far.Descend(*far, nullptr);
      from_far.Prune(*far);
    }
    walk.Add(from_far);
  }
  {
    const bool reached = best.m.timeline.peak_bytes <= options.target_bytes;
    const Budget part = tie && reached ? budget.Split(0.5) : budget;
    Walk block_by_block(graph, search, options, part);
    block_by_block.Descend(greedy, nullptr);
    block_by_block.Prune(greedy);
    walk.Add(block_by_block);
  }
  std::vector<State> starts;  // On a tie, the first.
  starts.push_back(std::move(best));
  starts.push_back(std::move(greedy));
  if (far) starts.push_back(std::move(*far));
  for (;;) {
    auto most = std::max_element(
        starts.begin(), starts.end(),
        [&](const State& a, const State& b) { return Better(b.m, a.m, target); });
    if (!unasked(*most)) {
      best = std::move(*most);
      break;
    }
    ask(*most);
  }
  // Large-neighbourhood search: descend again, with noise, from a neighbourhood of the
  // current point, until `stall_rounds` restarts in a row find nothing better than the
  // best. The current point moves to every result no worse than itself, and to a worse
  // one every eighth time (so that the search leaves a plateau), and back to the best
  // after a stall of a tenth of the limit.
  std::mt19937_64 rng(0x011a);
  State current = best;
  int32_t restarts = 0;
  auto optimal = [&] {
    return Reaches(best.m, target) && best.m.added_cost <= options.cost_floor;
  };
  for (int32_t stall = 0; stall < options.stall_rounds && !walk.out() && !optimal();
       ++stall) {
    std::optional<State> next =
        walk.Measure(walk.Neighbour(current.choice, restarts++, rng));
    if (!next) continue;
    walk.Descend(*next, &rng);
    walk.Prune(*next, &current.choice);
    if (unasked(*next) && Better(next->m, best.m, target)) ask(*next);
    if (Better(next->m, best.m, target)) {
      best = *next;
      current = std::move(*next);
      stall = -1;
    } else if (!Better(current.m, next->m, target) || rng() % 8 == 0) {
      current = std::move(*next);
    } else if ((stall + 1) % std::max(1, options.stall_rounds / 10) == 0) {
      current = best;
    }
  }
  total.Add(walk);
  return best;
}

}  // namespace

bool HasRecomputableBuffer(const Graph& graph) {
  const std::vector<char> droppable = FindRecomputableBuffers(graph).droppable;
  return std::find(droppable.begin(), droppable.end(), 1) != droppable.end();
}

RematResult Rematerialize(const Graph& graph, const Order& order,
                          const RematOptions& options, const Budget& budget) {
  // The activations first, then the whole step from their best with the work left
  // (recomputable.h): cheaper plans where they reach the target, lower ones where
  // they do not (remat_brute_force_test.cc). Below the floor of the activations'
  // plans, where no plan of theirs reaches the target, their search aims at that floor
  // and stops there (what it adds matters not: the whole step's search goes on from
  // it), and its plans are no results (not laid out).
  const RepeatedBlocks blocks = FindRepeatedBlocks(graph);
  RecomputableBuffers whole_step = FindRecomputableBuffers(graph, Reach::kWholeStep);
  const Search activations(graph, order, options,
                           FindRecomputableBuffers(graph, Reach::kActivations), blocks);
  // The whole step has buffers to drop that the activations do not.
  const bool further = whole_step.droppable != activations.droppable_buffers();
  RematOptions first = options;
  if (further) {
    const int64_t floor =
        ComputeSearchedFloor(graph, Reach::kActivations, budget.Split(kFloorShare)).bytes;
    if (options.target_bytes < floor) {
      first.target_bytes = floor;
      first.cost_floor = std::numeric_limits<int64_t>::max();
      first.lays_out = nullptr;
    }
  }
  // Counts the work of both searches (the search it names is not used).
  Walk total(graph, activations, options, budget);
  // Nothing dropped is always valid; its measurement spends no work.
  const Choice nothing(graph.num_buffers());
  State best = SearchReach(graph, activations, first, budget,
                           State{nothing, std::move(*activations.Measure(nothing))},
                           /*from_nothing=*/true, total);
  if (further && !total.out()) {
    // Its measurement holds for the whole step's search: the activations' late
    // readers are the same in both.
    const Search whole(graph, order, options, std::move(whole_step), blocks);
    best = SearchReach(graph, whole, options, budget, std::move(best),
                       /*from_nothing=*/false, total);
  }
  RematResult result;
  result.recompute = std::move(best.m.recompute);
  result.order = std::move(best.m.order);
  result.peak_bytes = best.m.timeline.peak_bytes;
  result.added_cost = best.m.added_cost;
  result.reached = Reaches(best.m, options.target_bytes);
  result.measurements = total.measurements() + 1;
  // Nothing dropped measured first: it reached the target when nothing else did.
  if (result.reached) result.measurements_to_reach = total.reached_after() + 1;
  result.stopped_by = total.out() ? budget.Reached() : Budget::Limit::kNone;
  return result;
}

}  // namespace olla
