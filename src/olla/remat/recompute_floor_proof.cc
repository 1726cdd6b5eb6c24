#include "olla/remat/recompute_floor_proof.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "olla/analysis/lower_bounds.h"
#include "olla/remat/make_cut.h"

namespace olla {
namespace {

// How many descendants of an op, nearest first, the proof tries as its later reader:
// the MLP's backward reads the GELU's gradient right after it on vit_b_16; a residual
// join is a few ops down a ResNet block's backward.
constexpr int32_t kReaders = 8;
constexpr size_t kNearest = 64;  // The descendants it looks among.
// Where a reader alone shows too little, how many ops it splits the plans on: vit_b_16's
// last MLP backward waits on the next layer's GELU backward (the largest footprint).
constexpr size_t kSplits = 2;

// A later reader `reader` of the op tried, and the most its inputs can add there.
struct Reader {
  OpId reader;
  int64_t waiting_bytes = 0;
};

class Proof {
 public:
  Proof(const Graph& graph, const std::vector<bool>& kept, const FloorAt& floor,
        const Budget& budget)
      : graph_(graph), kept_(kept), floor_(floor) {
    const auto ops = static_cast<size_t>(graph.num_ops());
    own_.resize(ops);
    own_bytes_.resize(ops);
    for (size_t o = 0; o < ops; ++o) {
      const Op& op = graph.op(OpId(static_cast<int32_t>(o)));
      std::vector<BufferId>& own = own_[o];
      for (const std::vector<BufferId>* list : {&op.uses, &op.allocates})
        for (BufferId b : *list)
          if (!graph.buffer(b).persistent) own.push_back(b);
      std::sort(own.begin(), own.end());
      own.erase(std::unique(own.begin(), own.end()), own.end());
      own_bytes_[o] = op.workspace;
      for (BufferId b : own) own_bytes_[o] += graph.buffer(b).size;
    }
    // The recompute floor at each op (recompute_floor.cc), its footprint and the kept
    // buffers forced live there.
    const ForcedLive forced = ComputeForcedLive(graph, budget, kept);
    const std::vector<int64_t> footprints = SingleOpFootprints(graph, Freeable(kept));
    floor_at_.resize(ops);
    readers_.resize(ops);
    for (size_t o = 0; o < ops; ++o) {
      floor_at_[o] = forced.bytes[o] + footprints[o] -
                     graph.op(OpId(static_cast<int32_t>(o))).workspace;
      readers_[o] = NearestReaders(OpId(static_cast<int32_t>(o)));
    }
    in_.assign(ops, 0);
    node_.assign(static_cast<size_t>(graph.num_buffers()), -1);
    live_.assign(static_cast<size_t>(graph.num_buffers()), 0);
    held_.assign(static_cast<size_t>(graph.num_buffers()), 0);
  }

  FloorAt Prove(int64_t peak, const Budget& budget) {
    peak_ = peak;
    FloorAt shown = floor_;
    std::vector<std::tuple<int64_t, int32_t, int32_t>> tried;  // Highest floor first.
    for (int32_t o = 0; o < graph_.num_ops(); ++o) {
      const int64_t at = floor_at_[static_cast<size_t>(o)];
      const std::vector<Reader>& readers = readers_[static_cast<size_t>(o)];
      for (size_t r = 0; r < readers.size(); ++r)
        if (at + readers[r].waiting_bytes >= peak)
          tried.push_back({-at, o, static_cast<int32_t>(r)});
    }
    std::sort(tried.begin(), tried.end());
    for (const auto& [unused, o, r] : tried) {
      if (shown.bytes >= peak || budget.Exhausted()) break;
      const std::pair<int32_t, int32_t> anchor{o, r};
      // What an anchor shows only falls as the peak rises.
      const auto fell = short_of_.find(anchor);
      if (fell != short_of_.end() && fell->second <= peak) continue;
      const OpId v(o);
      const OpId reader = readers_[static_cast<size_t>(o)][static_cast<size_t>(r)].reader;
      FloorAt at = ShownAt(v, reader, OpId(), budget);
      // Short of the peak: split the plans on which of y and the reader runs first.
      for (OpId y : at.bytes < peak ? Splits(v, reader) : std::vector<OpId>()) {
        if (at.bytes >= peak || budget.Exhausted()) break;
        FloorAt after = ShownAt(v, reader, y, budget);
        if (after.bytes <= at.bytes) continue;
        const int64_t before = ShownBefore(y, reader, budget);
        if (before <= at.bytes) continue;
        if (before < after.bytes) {  // Every plan holds the less of the two.
          after.waiting_bytes -= std::min(after.waiting_bytes, after.bytes - before);
          after.bytes = before;
        }
        at = after;
      }
      if (at.bytes > shown.bytes) shown = at;
      if (at.bytes < peak && !budget.Exhausted()) {
        int64_t& short_of = short_of_.try_emplace(anchor, peak).first->second;
        short_of = std::min(short_of, peak);
      }
    }
    return shown;
  }

 private:
  static std::vector<bool> Freeable(const std::vector<bool>& kept) {
    std::vector<bool> freeable(kept.size());
    for (size_t b = 0; b < kept.size(); ++b) freeable[b] = !kept[b];
    return freeable;
  }

  int64_t Size(BufferId b) const { return graph_.buffer(b).size; }

  // The kReaders descendants of `op` nearest it (breadth first, among the kNearest)
  // whose inputs besides op's own add bytes, with those bytes.
  std::vector<Reader> NearestReaders(OpId op) const {
    std::vector<Reader> readers;
    std::vector<OpId> queue = {op};
    for (size_t next = 0; next < queue.size() && readers.size() < kReaders; ++next) {
      for (OpId successor : graph_.successors(queue[next])) {
        if (queue.size() > kNearest) break;
        if (std::find(queue.begin(), queue.end(), successor) != queue.end()) continue;
        queue.push_back(successor);
        Reader reader{successor, 0};
        const std::vector<BufferId>& own = own_[op.index()];
        for (BufferId b : graph_.op(successor).uses) {
          if (graph_.buffer(b).persistent ||
              std::binary_search(own.begin(), own.end(), b))
            continue;
          reader.waiting_bytes += Size(b);
        }
        if (reader.waiting_bytes > 0 && readers.size() < kReaders)
          readers.push_back(reader);
      }
    }
    return readers;
  }

  // Marks `from` and every op reachable from it along `next` with `mark` in in_.
  template <typename Next>
  void Reach(OpId from, char mark, Next&& next) {
    std::vector<OpId> stack = {from};
    in_[from.index()] |= mark;
    while (!stack.empty()) {
      const OpId op = stack.back();
      stack.pop_back();
      for (OpId other : next(op)) {
        if (in_[other.index()] & mark) continue;
        in_[other.index()] |= mark;
        stack.push_back(other);
      }
    }
  }

  static constexpr char kBefore = 1;     // v or an ancestor of v: ran by t.
  static constexpr char kAfter = 2;      // v or a descendant of v.
  static constexpr char kAfterRead = 4;  // c or a descendant of c: runs after I.
  static constexpr char kExcluded = 8;   // In X: does not run in I.
  static constexpr char kLater = 16;     // y or a descendant of y: runs after I.

  // Made by t: an input of the graph, or made by v or an ancestor of v.
  bool MadeBefore(BufferId b) const {
    const OpId producer = graph_.producer(b);
    return !producer.valid() || (in_[producer.index()] & kBefore);
  }
  // Read at or after a first run of an op marked `mark`, or kept to the step's end.
  bool ReadWithin(BufferId b, char mark) const {
    if (graph_.buffer(b).output) return true;
    for (OpId user : graph_.users(b))
      if (in_[user.index()] & mark) return true;
    return false;
  }
  // Some run in I may make `b`: a run of its producer, outside X, that is allowed
  // there (a first run, or a buffer recomputation makes again).
  bool MayMake(BufferId b) const {
    const OpId producer = graph_.producer(b);
    if (!producer.valid()) return false;
    if (in_[producer.index()] & (kAfterRead | kLater | kExcluded)) return false;
    return !kept_[b.index()] || !MadeBefore(b);
  }
  // Some run after t may make `b`: any but the one run of a buffer no recomputation
  // makes again, made by t.
  OpId MakerAfter(BufferId b) const {
    return kept_[b.index()] && MadeBefore(b) ? OpId() : graph_.producer(b);
  }

  // The most bytes every plan below the peak holds at the first run of `v`, for the
  // inputs of `reader`, a descendant, by the header's proof; where `later` (a
  // descendant of v, or none) is given, for the plans that first run it after
  // `reader`, which hold its inputs too.
  FloorAt ShownAt(OpId v, OpId reader, OpId later, const Budget& budget) {
    std::fill(in_.begin(), in_.end(), 0);
    Reach(v, kBefore, [&](OpId op) { return graph_.predecessors(op); });
    Reach(v, kAfter, [&](OpId op) { return graph_.successors(op); });
    Reach(reader, kAfterRead, [&](OpId op) { return graph_.successors(op); });
    if (later.valid())
      Reach(later, kLater, [&](OpId op) { return graph_.successors(op); });
    // H, and what is live at t besides v's footprint: the kept buffers made by t and
    // read later.
    std::vector<BufferId> held, kept_at_t;
    for (int32_t i = 0; i < graph_.num_buffers(); ++i) {
      const BufferId b(i);
      if (!kept_[b.index()] || graph_.buffer(b).persistent || !MadeBefore(b)) continue;
      if (ReadWithin(b, kAfterRead | kLater)) held.push_back(b);
      if (ReadWithin(b, kAfter)) kept_at_t.push_back(b);
    }
    for (BufferId b : held) held_[b.index()] = 1;
    int64_t held_bytes = 0;
    for (BufferId b : held) held_bytes += Size(b);
    const std::vector<BufferId> needs = Inputs(reader);
    later_needs_.clear();
    if (later.valid())
      for (BufferId b : Inputs(later))
        if (!held_[b.index()]) later_needs_.push_back(b);

    // X: every op whose runs could make what the reader needs (or what that is made
    // from), H aside (v too: its outputs may be gone and made again); then those that
    // could be the last run below the peak leave it.
    std::vector<OpId> candidates;
    std::vector<BufferId> unmade = needs;
    std::vector<char> seen(static_cast<size_t>(graph_.num_buffers()), 0);
    while (!unmade.empty()) {
      const BufferId b = unmade.back();
      unmade.pop_back();
      if (seen[b.index()] || held_[b.index()] || graph_.buffer(b).persistent) continue;
      seen[b.index()] = 1;
      if (!MayMake(b)) continue;
      const OpId maker = graph_.producer(b);
      if (!(in_[maker.index()] & kExcluded)) {
        in_[maker.index()] |= kExcluded;
        candidates.push_back(maker);
      }
      for (BufferId input : graph_.op(maker).uses) unmade.push_back(input);
    }
    bool out_of_budget = false;
    for (bool dropped = true; dropped && !out_of_budget;) {
      dropped = false;
      for (OpId op : candidates) {
        if (!(in_[op.index()] & kExcluded)) continue;
        if (budget.Exhausted()) {
          out_of_budget = true;
          break;
        }
        if (LastRunBytes(op, held, held_bytes, needs, budget) < peak_) {
          in_[op.index()] &= static_cast<char>(~kExcluded);
          dropped = true;
        }
      }
    }
    for (BufferId b : held) held_[b.index()] = 0;
    FloorAt shown = floor_;
    if (out_of_budget) return shown;

    // At t: v's footprint, the kept buffers live there, and the cuts.
    shown.op = v;
    shown.reader = reader;
    shown.later = later;
    shown.footprint_bytes = own_bytes_[v.index()];
    shown.kept_bytes = 0;
    for (BufferId b : kept_at_t) {
      if (std::binary_search(own_[v.index()].begin(), own_[v.index()].end(), b)) continue;
      shown.kept_bytes += Size(b);
    }
    for (BufferId b : own_[v.index()]) live_[b.index()] = 1;
    for (BufferId b : kept_at_t) live_[b.index()] = 1;
    shown.waiting_bytes = WaitingCut(needs, budget);
    for (BufferId b : own_[v.index()]) live_[b.index()] = 0;
    for (BufferId b : kept_at_t) live_[b.index()] = 0;
    shown.bytes = shown.footprint_bytes + shown.kept_bytes + shown.waiting_bytes;
    return shown;
  }

  // The most bytes every plan that first runs `y` before `reader` holds at y's first
  // run: its footprint, the kept buffers made by then that it, its descendants, the
  // reader or the reader's read, and a cut over all those ops' inputs.
  int64_t ShownBefore(OpId y, OpId reader, const Budget& budget) {
    std::fill(in_.begin(), in_.end(), 0);
    Reach(y, kBefore, [&](OpId op) { return graph_.predecessors(op); });
    Reach(y, kAfter, [&](OpId op) { return graph_.successors(op); });
    Reach(reader, kAfterRead, [&](OpId op) { return graph_.successors(op); });
    std::vector<BufferId> kept_at;
    int64_t bytes = own_bytes_[y.index()];
    for (BufferId b : own_[y.index()]) live_[b.index()] = 1;
    for (int32_t i = 0; i < graph_.num_buffers(); ++i) {
      const BufferId b(i);
      if (!kept_[b.index()] || graph_.buffer(b).persistent || !MadeBefore(b) ||
          live_[b.index()] || !ReadWithin(b, kAfter | kAfterRead))
        continue;
      kept_at.push_back(b);
      live_[b.index()] = 1;
      bytes += Size(b);
    }
    std::vector<BufferId> needs;
    for (int32_t o = 0; o < graph_.num_ops(); ++o)
      if (in_[static_cast<size_t>(o)] & (kAfter | kAfterRead))
        for (BufferId b : graph_.op(OpId(o)).uses)
          if (!graph_.buffer(b).persistent && !live_[b.index()]) needs.push_back(b);
    std::sort(needs.begin(), needs.end());
    needs.erase(std::unique(needs.begin(), needs.end()), needs.end());
    bytes += MinMakeCut(
        graph_, needs, [&](BufferId b) { return live_[b.index()] != 0; },
        [&](BufferId b) { return MakerAfter(b); }, node_, budget);
    for (BufferId b : own_[y.index()]) live_[b.index()] = 0;
    for (BufferId b : kept_at) live_[b.index()] = 0;
    return bytes;
  }

  // Where `reader` fails alone: the ops y to split the plans on (which of y and the
  // reader runs first), at most kSplits, the largest footprints first. Descendants of
  // v, and neither ancestors nor descendants of the reader.
  std::vector<OpId> Splits(OpId v, OpId reader) {
    std::fill(in_.begin(), in_.end(), 0);
    Reach(v, kAfter, [&](OpId op) { return graph_.successors(op); });
    Reach(reader, kAfterRead, [&](OpId op) { return graph_.successors(op); });
    Reach(reader, kBefore, [&](OpId op) { return graph_.predecessors(op); });
    int64_t reads = 0;
    for (BufferId b : Inputs(reader)) reads += Size(b);
    std::vector<std::pair<int64_t, int32_t>> splits;  // Largest footprint first.
    for (int32_t o = 0; o < graph_.num_ops(); ++o) {
      const size_t i = static_cast<size_t>(o);
      if ((in_[i] & (kAfter | kAfterRead | kBefore)) != kAfter || OpId(o) == v) continue;
      if (own_bytes_[i] + reads < peak_) continue;
      splits.push_back({-own_bytes_[i], o});
    }
    std::sort(splits.begin(), splits.end());
    std::vector<OpId> ops;
    for (size_t s = 0; s < splits.size() && s < kSplits; ++s)
      ops.push_back(OpId(splits[s].second));
    return ops;
  }

  // The op's inputs in the arena, sorted.
  std::vector<BufferId> Inputs(OpId op) const {
    std::vector<BufferId> inputs;
    for (BufferId b : graph_.op(op).uses)
      if (!graph_.buffer(b).persistent) inputs.push_back(b);
    std::sort(inputs.begin(), inputs.end());
    inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
    return inputs;
  }

  // The least live bytes of a run of `op` in I as the last run of X's ops: or a number
  // below the peak, when it cannot reach it.
  int64_t LastRunBytes(OpId op, const std::vector<BufferId>& held, int64_t held_bytes,
                       const std::vector<BufferId>& needs, const Budget& budget) {
    int64_t bytes = held_bytes + graph_.op(op).workspace;
    std::vector<BufferId> own_run;  // Its inputs and outputs not held anyway.
    for (BufferId b : own_[op.index()]) {
      if (held_[b.index()]) continue;
      own_run.push_back(b);
      bytes += Size(b);
    }
    if (bytes >= peak_) return bytes;
    int64_t waiting = 0;  // At most what the cuts count.
    for (const std::vector<BufferId>* list : {&needs, &std::as_const(later_needs_)})
      for (BufferId b : *list)
        if (!held_[b.index()] && !std::binary_search(own_run.begin(), own_run.end(), b))
          waiting += Size(b);
    if (bytes + waiting < peak_) return bytes;
    for (const std::vector<BufferId>* list : {&std::as_const(own_run), &held})
      for (BufferId b : *list) live_[b.index()] = 1;
    const int64_t cut = WaitingCut(needs, budget);
    for (const std::vector<BufferId>* list : {&std::as_const(own_run), &held})
      for (BufferId b : *list) live_[b.index()] = 0;
    return bytes + cut;
  }

  // The bytes live at a time s in I, besides those live_ marks, for the reader's
  // inputs (MinMakeCut, make_cut.h: made in I, where MayMake says) and, over the
  // buffers that cut did not reach (no byte counted twice), for y's (made after s by
  // any run MakerAfter allows).
  int64_t WaitingCut(const std::vector<BufferId>& needs, const Budget& budget) {
    auto live = [&](BufferId b) { return live_[b.index()] != 0; };
    std::vector<BufferId> reached;
    int64_t cut = MinMakeCut(
        graph_, needs, live,
        [&](BufferId b) { return MayMake(b) ? graph_.producer(b) : OpId(); }, node_,
        budget, &reached);
    if (later_needs_.empty()) return cut;
    for (BufferId b : reached) live_[b.index()] = 1;
    cut += MinMakeCut(
        graph_, later_needs_, live, [&](BufferId b) { return MakerAfter(b); }, node_,
        budget);
    for (BufferId b : reached) live_[b.index()] = 0;
    return cut;
  }

  const Graph& graph_;
  const std::vector<bool>& kept_;
  const FloorAt floor_;
  std::vector<std::vector<BufferId>> own_;  // By op: its buffers in the arena, sorted.
  std::vector<int64_t> own_bytes_;          // By op: those and its workspace.
  std::vector<int64_t> floor_at_;           // By op: the recompute floor there.
  std::vector<std::vector<Reader>> readers_;
  std::vector<char> in_;       // By op: kBefore | kAfter | kAfterRead | kExcluded.
  std::vector<int32_t> node_;  // By buffer: its vertex in the cut being built.
  std::vector<char> live_;     // By buffer: free in the cut being built.
  std::vector<char> held_;     // By buffer: in H.
  std::vector<BufferId> later_needs_;  // y's inputs, H aside (empty without y).
  // By anchor (op, reader index): the least peak it fell short of.
  std::map<std::pair<int32_t, int32_t>, int64_t> short_of_;
  int64_t peak_ = 0;
};

// What the proof `shown` at `peak` says of every plan, where it is above `floor`: what
// it shows beyond `peak` holds only for plans below `peak`.
FloorAt AtMost(FloorAt shown, int64_t peak, const FloorAt& floor) {
  if (shown.bytes <= floor.bytes) return floor;
  const int64_t over = std::max<int64_t>(0, shown.bytes - peak);
  shown.bytes -= over;
  shown.waiting_bytes -= std::min(shown.waiting_bytes, over);
  return shown;
}

// `floor` raised by the proof, tried first at `ceiling` + 1, then below it by bisection
// to the byte (some 32 tries: each is cheap, as few anchors reach a peak near the floor).
FloorAt Raise(const Graph& graph, const std::vector<bool>& kept, FloorAt floor,
              int64_t ceiling, const Budget& budget) {
  Proof proof(graph, kept, floor, budget);
  int64_t high = ceiling + 1;  // Not shown (or beyond the ceiling).
  floor = AtMost(proof.Prove(high, budget), high, floor);
  while (high - floor.bytes > 1 && !budget.Exhausted()) {
    const int64_t middle = floor.bytes + (high - floor.bytes) / 2;
    const FloorAt shown = proof.Prove(middle, budget);
    if (shown.bytes < middle) high = middle;
    floor = AtMost(shown, middle, floor);
  }
  return floor;
}

}  // namespace

RecomputeFloor RaiseRecomputeFloors(const Graph& graph, RecomputeFloor floors,
                                    int64_t ceiling, const Budget& budget) {
  floors.every_plan = Raise(graph, BuffersNoRecomputationFrees(graph), floors.every_plan,
                            ceiling, budget.Split(0.5));
  if (floors.searched.bytes < floors.every_plan.bytes)
    floors.searched = floors.every_plan;
  floors.searched =
      Raise(graph, BuffersTheSearchNeverFrees(graph), floors.searched, ceiling, budget);
  if (floors.searched.bytes < floors.every_plan.bytes)
    floors.searched = floors.every_plan;
  return floors;
}

}  // namespace olla
