#include "olla/remat/order_floor_proof.h"

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "olla/plan/recompute_rules.h"
#include "olla/remat/make_cut.h"

namespace olla {
namespace {

// How many steps after a step the proof follows what is read there: the gaps' runnable
// ops are one bit each.
constexpr int32_t kWindow = 16;

// A buffer as plans on the order hold it: its lifetime in the order; for a droppable
// one, the last step that reads the original (`after`) and the late readers' steps.
struct Held {
  int64_t size = 0;
  int32_t start = 0;
  int32_t end = 0;  // Exclusive.
  int32_t after = 0;
  std::vector<int32_t> reads;  // Ascending.
  bool droppable = false;
  bool copyable = false;
  bool persistent = false;

  bool Live(int32_t step) const { return start <= step && step < end; }
  // Live at `step` in every plan (the order's floor counts it).
  bool KeptAt(int32_t step) const {
    if (persistent || !Live(step)) return false;
    return !droppable || step <= after ||
           std::binary_search(reads.begin(), reads.end(), step);
  }
  // Live throughout the gap after `gap` in every plan: the original until its last
  // early reader, or until its last reader if never dropped.
  bool KeptAcross(int32_t gap) const {
    if (persistent || !Live(gap) || !Live(gap + 1)) return false;
    return !droppable || after > gap;
  }
  // The first late read after `gap`, or -1.
  int32_t NextRead(int32_t gap) const {
    const auto it = std::upper_bound(reads.begin(), reads.end(), gap);
    return it == reads.end() ? -1 : *it;
  }
};

// A buffer a later step reads that a plan may have dropped: live (or made) by `read`.
struct Waiting {
  int32_t read;
  BufferId buffer;
  auto operator<=>(const Waiting&) const = default;
};

class Proof {
 public:
  Proof(const Graph& graph, const Order& order) : graph_(graph), order_(order) {
    const int32_t steps = order.size();
    const Lifetimes lifetimes = ComputeLifetimes(graph, order);
    const RecomputableBuffers buffers = FindRecomputableBuffers(graph);
    const std::vector<FreeSpan> spans = FreeSpans(graph, order, lifetimes, buffers);
    kept_bytes_ = KeptBytes(ComputeTimeline(graph, order, lifetimes), spans);
    may_run_.resize(static_cast<size_t>(graph.num_ops()));
    for (int32_t o = 0; o < graph.num_ops(); ++o)
      may_run_[static_cast<size_t>(o)] = RecomputeRefusal(graph, OpId(o)).empty();
    held_.resize(static_cast<size_t>(graph.num_buffers()));
    for (int32_t b = 0; b < graph.num_buffers(); ++b) {
      Held& h = held_[static_cast<size_t>(b)];
      const BufferId id(b);
      h.size = graph.buffer(id).size;
      h.persistent = graph.buffer(id).persistent;
      h.start = lifetimes[id].start;
      h.end = lifetimes[id].end;
      h.copyable = buffers.copyable[id.index()];
    }
    for (const FreeSpan& span : spans) {
      Held& h = held_[span.buffer.index()];
      h.droppable = true;
      h.after = span.after;
      h.reads = span.reads;
    }
    node_.assign(held_.size(), -1);
    short_of_.assign(static_cast<size_t>(steps), std::numeric_limits<int64_t>::max());
    waiting_bytes_.assign(static_cast<size_t>(steps), 0);
    for (int32_t step = 0; step + 1 < steps; ++step) {
      for (const Waiting& w : WaitingAt(step, Window(step), true))
        waiting_bytes_[static_cast<size_t>(step)] += Size(w.buffer);
    }
  }

  // The most bytes shown live at a step of every plan below `peak` (and where): at
  // `peak` or more, no such plan exists; below it, still a floor (what a plan below
  // it must hold, it must hold below `peak` too).
  OrderFloor Prove(int64_t peak, const Budget& budget) {
    peak_ = peak;
    OrderFloor shown;
    std::vector<std::pair<int64_t, int32_t>> tried;  // Most kept bytes first.
    for (int32_t step = 0; step < order_.size(); ++step) {
      const int64_t kept = kept_bytes_[static_cast<size_t>(step)];
      if (kept > shown.bytes) shown = {kept, step};
      if (step + 1 < order_.size() &&
          kept + waiting_bytes_[static_cast<size_t>(step)] >= peak)
        tried.push_back({-kept, step});
    }
    std::sort(tried.begin(), tried.end());
    // The step that showed the last peak first: near it, it likely shows this one too.
    std::stable_partition(tried.begin(), tried.end(),
                          [&](const auto& t) { return t.second == last_shown_; });
    for (const auto& [unused, step] : tried) {
      if (shown.bytes >= peak || budget.Exhausted()) break;
      // What a step shows only falls as the peak rises: one that fell short of a
      // lower peak falls short of this one.
      int64_t& short_of = short_of_[static_cast<size_t>(step)];
      if (short_of <= peak) continue;
      const int64_t bytes = ShownAt(step, budget);
      if (bytes > shown.bytes) shown = {bytes, step};
      if (bytes >= peak) last_shown_ = step;
      if (bytes < peak && !budget.Exhausted()) short_of = std::min(short_of, peak);
    }
    return shown;
  }

 private:
  int64_t Size(BufferId b) const { return held_[b.index()].size; }
  int32_t Window(int32_t step) const {
    return std::min(step + kWindow, order_.size() - 1);
  }

  // The droppable buffers not kept at `step` (or across the gap after it) that a step
  // up to `last` reads, by that read.
  std::vector<Waiting> WaitingAt(int32_t step, int32_t last, bool at_step) const {
    std::vector<Waiting> waiting;
    for (int32_t b = 0; b < graph_.num_buffers(); ++b) {
      const Held& h = held_[static_cast<size_t>(b)];
      if (!h.droppable || !h.Live(step)) continue;
      if (at_step ? h.KeptAt(step) : h.KeptAcross(step)) continue;
      const int32_t read = h.NextRead(step);
      if (read >= 0 && read <= last) waiting.push_back({read, BufferId(b)});
    }
    std::sort(waiting.begin(), waiting.end());
    return waiting;
  }

  // The gaps [from, to) (relative to the window's first) as a mask.
  static uint32_t Gaps(int32_t from, int32_t to) {
    if (to <= from) return 0;
    const uint32_t below_to = to >= 32 ? ~0u : (1u << to) - 1;  // to <= 32
    return below_to & ~((1u << from) - 1);
  }

  // The most bytes every plan below the peak holds at `step`: the order's floor there
  // and, over each later read, the cut over what no remaining run makes by then.
  int64_t ShownAt(int32_t step, const Budget& budget) {
    first_ = step;
    const int32_t last = Window(step);
    const std::vector<Waiting> at_step = WaitingAt(step, last, true);
    gaps_.clear();
    for (int32_t gap = step; gap < last; ++gap) {
      Gap g;
      g.kept.assign(held_.size(), 0);
      for (size_t b = 0; b < held_.size(); ++b) {
        if (!held_[b].KeptAcross(gap)) continue;
        g.kept[b] = 1;
        g.kept_bytes += held_[b].size;
      }
      g.waiting = WaitingAt(gap, last, false);
      gaps_.push_back(std::move(g));
    }
    runnable_.assign(static_cast<size_t>(graph_.num_ops()), 0);
    for (int32_t o = 0; o < graph_.num_ops(); ++o)
      if (may_run_[static_cast<size_t>(o)]) runnable_[static_cast<size_t>(o)] = ~0u;
    // Only the ops that make what the window reads, or what that is made from, take
    // part in a cut: RuleOut tries no other.
    makers_.assign(static_cast<size_t>(graph_.num_ops()), 0);
    std::vector<BufferId> unmade;
    for (const Waiting& w : at_step) unmade.push_back(w.buffer);
    for (const Gap& g : gaps_)
      for (const Waiting& w : g.waiting) unmade.push_back(w.buffer);
    while (!unmade.empty()) {
      const OpId maker = graph_.producer(unmade.back());
      unmade.pop_back();
      if (!maker.valid() || makers_[maker.index()]) continue;
      makers_[maker.index()] = 1;
      for (BufferId input : graph_.op(maker).uses) unmade.push_back(input);
    }
    std::vector<int32_t> reads;
    for (const Waiting& w : at_step) reads.push_back(w.read);
    reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
    const int64_t kept = kept_bytes_[static_cast<size_t>(step)];
    int64_t shown = kept;
    for (int32_t read : reads) {
      if (!RuleOut(read, budget)) break;
      std::vector<BufferId> sinks;
      for (const Waiting& w : at_step)
        if (w.read <= read) sinks.push_back(w.buffer);
      const uint32_t gaps = Gaps(0, read - first_);
      const int64_t cut = Cut(
          sinks, [&](BufferId b) { return held_[b.index()].KeptAt(step); },
          [&](OpId op) { return (runnable_[op.index()] & gaps) != 0; }, budget);
      shown = std::max(shown, kept + cut);
      if (shown >= peak_) break;
    }
    return shown;
  }

  // Clears the gaps before `read` of every op that cannot run there below the peak
  // (the set X of the header's proof). False when out of budget.
  bool RuleOut(int32_t read, const Budget& budget) {
    const uint32_t before = Gaps(0, read - first_);
    excluded_.assign(static_cast<size_t>(graph_.num_ops()), 0);
    std::vector<OpId> candidates;
    for (int32_t o = 0; o < graph_.num_ops(); ++o) {
      if (!makers_[static_cast<size_t>(o)]) continue;
      if (!(runnable_[static_cast<size_t>(o)] & before)) continue;
      excluded_[static_cast<size_t>(o)] = 1;
      candidates.push_back(OpId(o));
    }
    for (bool dropped = true; dropped;) {
      dropped = false;
      for (OpId op : candidates) {
        if (!excluded_[op.index()]) continue;
        for (int32_t gap = first_; gap < read; ++gap) {
          if (!(runnable_[op.index()] & Gaps(gap - first_, gap - first_ + 1))) continue;
          if (budget.Exhausted()) return false;
          if (LastRunBytes(op, gap, read, budget) < peak_) {
            excluded_[op.index()] = 0;
            dropped = true;
            break;
          }
        }
      }
    }
    for (OpId op : candidates)
      if (excluded_[op.index()]) runnable_[op.index()] &= ~before;
    return true;
  }

  // The least live bytes of a run of `op` in the gap after `gap`, as the last run of the
  // excluded ops before `read`: or a number below the peak, when it cannot reach it.
  int64_t LastRunBytes(OpId op, int32_t gap, int32_t read, const Budget& budget) {
    const Gap& g = gaps_[static_cast<size_t>(gap - first_)];
    const Op& run = graph_.op(op);
    int64_t bytes = g.kept_bytes + run.workspace;
    std::vector<BufferId> own;  // Its inputs and outputs not kept anyway.
    for (const std::vector<BufferId>* list : {&run.uses, &run.allocates}) {
      for (BufferId b : *list) {
        if (g.kept[b.index()] || held_[b.index()].persistent) continue;
        if (std::find(own.begin(), own.end(), b) != own.end()) continue;
        own.push_back(b);
        bytes += Size(b);
      }
    }
    if (bytes >= peak_) return bytes;
    std::vector<BufferId> sinks;
    int64_t waiting = 0;
    for (const Waiting& w : g.waiting) {
      if (w.read > read) break;
      if (std::find(own.begin(), own.end(), w.buffer) != own.end()) continue;
      sinks.push_back(w.buffer);
      waiting += Size(w.buffer);
    }
    if (bytes + waiting < peak_) return bytes;
    const uint32_t gaps = Gaps(gap - first_, read - first_);
    return bytes + Cut(
                       sinks,
                       [&](BufferId b) {
                         return g.kept[b.index()] != 0 ||
                                std::find(own.begin(), own.end(), b) != own.end();
                       },
                       [&](OpId other) {
                         return !excluded_[other.index()] &&
                                (runnable_[other.index()] & gaps) != 0;
                       },
                       budget);
  }

  // MinMakeCut (make_cut.h), where a run of an op `may_make` accepts may make a
  // copyable buffer.
  template <typename Live, typename MayMake>
  int64_t Cut(const std::vector<BufferId>& sinks, Live&& live, MayMake&& may_make,
              const Budget& budget) {
    return MinMakeCut(
        graph_, sinks, live,
        [&](BufferId b) {
          const OpId producer = graph_.producer(b);
          if (!held_[b.index()].copyable || !producer.valid() ||
              !may_run_[producer.index()] || !may_make(producer))
            return OpId();
          return producer;
        },
        node_, budget);
  }

  struct Gap {
    std::vector<char> kept;  // By buffer: live across it in every plan.
    int64_t kept_bytes = 0;
    std::vector<Waiting> waiting;
  };

  const Graph& graph_;
  const Order& order_;
  std::vector<Held> held_;
  std::vector<char> may_run_;
  std::vector<int64_t> kept_bytes_;  // By step: the order's floor there.
  // By step: what its window's later steps read that a plan may have dropped there.
  std::vector<int64_t> waiting_bytes_;
  std::vector<int32_t> node_;  // By buffer: its vertex in the cut being built.
  // By step: the least peak it fell short of (a peak it cannot show).
  std::vector<int64_t> short_of_;
  int32_t last_shown_ = -1;  // The last step that showed a peak tried.
  int64_t peak_ = 0;
  int32_t first_ = 0;  // The step being tried; its window's gaps follow.
  std::vector<Gap> gaps_;
  std::vector<uint32_t> runnable_;  // By op: the window's gaps where it may run.
  std::vector<char> excluded_;      // By op: in X.
  std::vector<char> makers_;        // By op: it makes what the window reads (or from).
};

}  // namespace

OrderFloor ProveOrderFloor(const Graph& graph, const Order& order, int64_t peak,
                           const Budget& budget) {
  return Proof(graph, order).Prove(peak, budget);
}

OrderFloor RaiseOrderFloor(const Graph& graph, const Order& order, OrderFloor floor,
                           int64_t ceiling, const Budget& budget) {
  Proof proof(graph, order);
  int64_t high = ceiling + 1;  // Not shown (or beyond the ceiling).
  while (high - floor.bytes > std::max<int64_t>(1, floor.bytes / 4096) &&
         !budget.Exhausted()) {
    const int64_t middle = floor.bytes + (high - floor.bytes) / 2;
    const OrderFloor shown = proof.Prove(middle, budget);
    if (shown.bytes < middle) high = middle;
    // What it shows beyond `middle` holds only for plans below `middle`.
    if (shown.bytes > floor.bytes) floor = {std::min(shown.bytes, middle), shown.step};
  }
  return floor;
}

}  // namespace olla
