#include "olla/placement/exact.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <numeric>

#include "olla/core/stack_thread.h"
#include "olla/placement/greedy.h"
#include "olla/placement/range_max.h"
#include "olla/placement/sections.h"

namespace olla {
namespace {

using Clock = std::chrono::steady_clock;

enum class Outcome { kFound, kExhausted, kAborted };

// What orders buffers whose candidate offsets tie: a rule compares buffers by its keys
// in turn, larger first, then by id. The crowd of a buffer is the largest sum of
// unplaced sizes in a stretch it lives through: the most crowded stretches are the most
// constrained. Ranks are recomputed, crowds with them, whenever the search splits into
// independent parts, since a part's crowded stretches are its own (as in MiniMalloc).
enum class RankKey : uint8_t { kCrowd, kLength, kArea, kSpan, kSize };
using RankRule = std::vector<RankKey>;

// No one rule wins everywhere: each of the challenging instances falls to some of them.
const std::vector<RankRule> kRankRules = {
    {RankKey::kCrowd, RankKey::kLength, RankKey::kArea},
    {RankKey::kCrowd, RankKey::kSpan, RankKey::kSize},
    {RankKey::kCrowd, RankKey::kArea, RankKey::kLength},
    {RankKey::kLength, RankKey::kArea, RankKey::kCrowd},
    {RankKey::kSize, RankKey::kLength},
    {RankKey::kArea, RankKey::kCrowd, RankKey::kLength}};

// The keys that do not change during a search, per buffer.
struct StaticKeys {
  std::vector<int64_t> length, area, span, size;

  StaticKeys(const PlacementProblem& problem, const Sections& sections) {
    const auto n = static_cast<size_t>(problem.size());
    length.resize(n);
    area.resize(n);
    span.resize(n);
    size.resize(n);
    for (size_t b = 0; b < n; ++b) {
      const PlacementBuffer& buffer = problem.buffers[b];
      length[b] = buffer.end - buffer.start;
      span[b] = sections.of_buffer[b].last - sections.of_buffer[b].first;
      size[b] = buffer.size;
      // Saturating: areas only order buffers.
      area[b] = buffer.size > INT64_MAX / std::max<int64_t>(length[b], 1)
                    ? INT64_MAX
                    : buffer.size * length[b];
    }
  }
};

// What every search of one problem shares, built once per Place or FitUnderCapacity.
struct SearchSpace {
  SearchSpace(const PlacementProblem& of, bool decompose)
      : problem(of),
        sections(ComputeSections(of)),
        partitions(sections.partitions),
        keys(of, sections),
        overlaps(of.buffers.size()) {
    if (!decompose && !partitions.empty()) {
      Partition whole{
          {partitions.front().sections.first, partitions.back().sections.last}, {}};
      for (const Partition& p : partitions)
        whole.buffers.insert(whole.buffers.end(), p.buffers.begin(), p.buffers.end());
      std::sort(whole.buffers.begin(), whole.buffers.end());
      partitions = {whole};
    }
    // Two buffers meet first in the section where the later of them starts: each pair
    // is found there once, from the buffer that starts in it.
    for (int32_t s = 0; s < sections.size(); ++s) {
      const auto& live = sections.buffers_in[static_cast<size_t>(s)];
      for (int32_t a : live) {
        if (sections.of_buffer[static_cast<size_t>(a)].first != s) continue;
        for (int32_t b : live) {
          if (b == a) continue;
          overlaps[static_cast<size_t>(a)].push_back(b);
          if (sections.of_buffer[static_cast<size_t>(b)].first != s)
            overlaps[static_cast<size_t>(b)].push_back(a);
        }
      }
    }
  }

  const PlacementProblem& problem;
  Sections sections;
  std::vector<Partition> partitions;  // One, the whole problem, without decomposition.
  StaticKeys keys;
  std::vector<std::vector<int32_t>> overlaps;  // Per buffer: the buffers it meets.
};

class Searcher {
 public:
  Searcher(const SearchSpace& space, const Partition& partition, const RankRule& rule,
           int64_t capacity, const ExactOptions& options, int64_t node_limit,
           const Budget& budget)
      : space_(space),
        partition_(partition),
        problem_(space.problem),
        rule_(rule),
        keys_(space.keys),
        capacity_(capacity),
        options_(options),
        node_limit_(node_limit),
        budget_(budget) {}

  Outcome Run(std::vector<int64_t>& offsets) {
    const auto n = static_cast<size_t>(problem_.size());
    const auto sections = static_cast<size_t>(space_.sections.size());
    offset_.assign(n, -1);
    candidate_.assign(n, 0);
    floor_.assign(sections, 0);
    remaining_.assign(sections, 0);
    spanning_.assign(sections, 0);
    open_.assign(n, 0);
    rank_.assign(n, 0);
    crowd_.assign(n, 0);
    marked_.assign(sections, 0);
    witness_.assign(sections, -1);
    witnessed_.assign(n, {});
    witness_pushes_.clear();
    placed_.clear();
    members_.assign(sections, {});
    unplaced_members_.assign(sections, 0);
    slot_base_.assign(n, 0);
    slots_.clear();
    std::vector<int32_t> unplaced;
    for (int32_t b : partition_.buffers) {
      // Zero-size buffers take no bytes: they sit at offset 0 from the start.
      if (problem_.buffers[static_cast<size_t>(b)].size == 0) {
        offset_[static_cast<size_t>(b)] = 0;
        continue;
      }
      unplaced.push_back(b);
      const SectionRange range = space_.sections.of_buffer[static_cast<size_t>(b)];
      slot_base_[static_cast<size_t>(b)] = static_cast<int64_t>(slots_.size());
      for (int32_t s = range.first; s < range.last; ++s) {
        std::vector<int32_t>& members = members_[static_cast<size_t>(s)];
        slots_.push_back(static_cast<int32_t>(members.size()));
        members.push_back(b);
        ++unplaced_members_[static_cast<size_t>(s)];
        remaining_[static_cast<size_t>(s)] +=
            problem_.buffers[static_cast<size_t>(b)].size;
        if (s + 1 < range.last) ++spanning_[static_cast<size_t>(s)];
      }
    }
    for (int32_t b : unplaced) {
      for (int32_t other : space_.overlaps[static_cast<size_t>(b)]) {
        if (problem_.buffers[static_cast<size_t>(other)].size > 0)
          ++open_[static_cast<size_t>(b)];
      }
    }
    if (options_.section_bound && !SectionFits(partition_.sections, 0)) {
      return Outcome::kExhausted;  // Some stretch holds more than the capacity.
    }
    if (budget_.OutOfTime()) return Outcome::kAborted;  // Setting up took it all.
    Rank(unplaced, partition_.sections);
    if (Search(unplaced, partition_.sections, 0, -1)) {
      for (int32_t b : partition_.buffers) {
        offsets[static_cast<size_t>(b)] = offset_[static_cast<size_t>(b)];
      }
      return Outcome::kFound;
    }
    return aborted_ ? Outcome::kAborted : Outcome::kExhausted;
  }

  int64_t nodes() const { return nodes_; }

 private:
  // Undo: what Place counts up or down (sizes and buffers per section, overlapping
  // unplaced buffers) Unplace counts back; every other change (candidates, floors,
  // ranks) goes through Set, which records the old value on a trail. UndoTo(mark)
  // restores the trail and unplaces the buffers placed since the mark. (The state's
  // vectors are sized once in Run, so the recorded slots stay valid.)
  struct Change {
    int64_t* slot;
    int64_t old_value;
  };
  struct Mark {
    size_t trail;
    size_t placed;
    size_t witness_pushes;
  };
  void Set(std::vector<int64_t>& state, int32_t index, int64_t value) {
    int64_t& slot = state[static_cast<size_t>(index)];
    trail_.push_back({&slot, slot});
    slot = value;
  }
  Mark MarkNow() const { return {trail_.size(), placed_.size(), witness_pushes_.size()}; }
  void UndoTo(Mark mark) {
    while (trail_.size() > mark.trail) {
      *trail_.back().slot = trail_.back().old_value;
      trail_.pop_back();
    }
    while (placed_.size() > mark.placed) {
      Unplace(placed_.back());
      placed_.pop_back();
    }
    while (witness_pushes_.size() > mark.witness_pushes) {
      witnessed_[static_cast<size_t>(witness_pushes_.back())].pop_back();
      witness_pushes_.pop_back();
    }
  }

  int64_t Candidate(int32_t b) const { return candidate_[static_cast<size_t>(b)]; }

  struct Choice {
    int64_t offset;
    int64_t rank;
    int32_t buffer;

    // Canonical order: by offset, ties by rank.
    bool Before(const Choice& other) const {
      return offset != other.offset ? offset < other.offset : rank < other.rank;
    }
  };

  // True when the unplaced buffers among `buffers` (placed ones are skipped), which
  // live only in `range`, can all be placed under the current state; the placement is
  // then left in the state.
  bool Search(const std::vector<int32_t>& buffers, SectionRange range,
              int64_t last_offset, int64_t last_rank) {
    // A buffer that no unplaced buffer overlaps any more ("hatless") has its final
    // offset: nothing can rise under it or rest on it. Place it now, outside the
    // branching. (Placing it moves no other buffer's candidate.)
    int64_t min_top = INT64_MAX;
    for (int32_t b : buffers) {
      if (offset_[static_cast<size_t>(b)] >= 0) continue;
      const int64_t top = Candidate(b) + problem_.buffers[static_cast<size_t>(b)].size;
      if (top > capacity_) return false;  // Candidates only grow: it can never fit.
      if (options_.place_hatless && open_[static_cast<size_t>(b)] == 0) {
        Place(b, Candidate(b));
      } else {
        min_top = std::min(min_top, top);
      }
    }
    if (min_top == INT64_MAX) return true;  // Nothing left to branch on.
    if (options_.section_bound && !ChangedSectionsFit(last_offset)) return false;
    // The clock is read every 64 nodes: on large traces a node takes up to a
    // millisecond.
    if (++nodes_ > node_limit_ || ((nodes_ & 63) == 0 && budget_.OutOfTime())) {
      aborted_ = true;
      return false;
    }
    // The sections Place leaves alone passed at this node; a child adds its offset.
    const int64_t fullest = options_.section_bound ? FullestSection(range) : 0;
    // The choices are taken in canonical order one at a time, each by a scan: a dive
    // rarely tries more than the first, so sorting them all would cost more.
    Choice tried{INT64_MIN, INT64_MIN, -1};
    while (true) {
      Choice next{INT64_MAX, INT64_MAX, -1};
      for (int32_t b : buffers) {
        if (offset_[static_cast<size_t>(b)] >= 0) continue;
        const Choice choice{Candidate(b), rank_[static_cast<size_t>(b)], b};
        if (options_.canonical_order && choice.Before({last_offset, last_rank, -1}))
          continue;
        // Another buffer would fit entirely below this one: placing it first is as good.
        if (options_.dominance && choice.offset >= min_top) continue;
        if (tried.Before(choice) && choice.Before(next)) next = choice;
      }
      if (next.buffer < 0) return false;
      const Mark mark = MarkNow();
      Place(next.buffer, next.offset);
      if (ChildFits(range, next.offset, fullest) && SearchRest(buffers, range, next)) {
        return true;
      }
      UndoTo(mark);
      if (aborted_) return false;
      tried = next;
    }
  }

  // After placing `choice.buffer`: the rest of `buffers` as one search, or, where no
  // unplaced buffer crosses some boundary any more, as independent searches of the parts.
  bool SearchRest(const std::vector<int32_t>& buffers, SectionRange range,
                  const Choice& choice) {
    std::vector<int32_t> cuts;  // Sections that start a new part.
    if (options_.decompose) {
      const SectionRange placed =
          space_.sections.of_buffer[static_cast<size_t>(choice.buffer)];
      for (int32_t s = placed.first; s + 1 < placed.last; ++s) {
        if (spanning_[static_cast<size_t>(s)] == 0) cuts.push_back(s + 1);
      }
    }
    if (cuts.empty()) return Search(buffers, range, choice.offset, choice.rank);
    // Parts between consecutive cuts (a part may be empty).
    cuts.insert(cuts.begin(), range.first);
    cuts.push_back(range.last);
    std::vector<std::vector<int32_t>> parts(cuts.size() - 1);
    for (int32_t b : buffers) {
      if (offset_[static_cast<size_t>(b)] >= 0) continue;
      const int32_t first = space_.sections.of_buffer[static_cast<size_t>(b)].first;
      const auto part =
          std::upper_bound(cuts.begin(), cuts.end(), first) - cuts.begin() - 1;
      parts[static_cast<size_t>(part)].push_back(b);
    }
    for (size_t p = 0; p < parts.size(); ++p) {
      // Independent parts restart the canonical order: their buffers never meet.
      Rank(parts[p], {cuts[p], cuts[p + 1]});
      if (!Search(parts[p], {cuts[p], cuts[p + 1]}, 0, -1)) return false;
    }
    return true;
  }

  // Ranks `buffers` (all unplaced, living in `range`) by the rule, their crowds taken
  // from what is unplaced now.
  void Rank(std::vector<int32_t> buffers, SectionRange range) {
    const RangeMax fullest(std::vector<int64_t>(remaining_.begin() + range.first,
                                                remaining_.begin() + range.last));
    for (int32_t b : buffers) {
      const SectionRange span = space_.sections.of_buffer[static_cast<size_t>(b)];
      crowd_[static_cast<size_t>(b)] =
          fullest.Max(span.first - range.first, span.last - range.first);
    }
    std::vector<const std::vector<int64_t>*> columns;
    for (RankKey k : rule_) columns.push_back(&KeyValues(k));
    std::sort(buffers.begin(), buffers.end(), [&](int32_t a, int32_t c) {
      for (const std::vector<int64_t>* column : columns) {
        const int64_t ka = (*column)[static_cast<size_t>(a)],
                      kc = (*column)[static_cast<size_t>(c)];
        if (ka != kc) return ka > kc;
      }
      return a < c;
    });
    // Only the order within the part matters: when the old ranks already follow it,
    // they stay (which spares the trail on large problems split into many parts).
    const bool in_order =
        std::adjacent_find(buffers.begin(), buffers.end(), [&](int32_t a, int32_t c) {
          return rank_[static_cast<size_t>(a)] >= rank_[static_cast<size_t>(c)];
        }) == buffers.end();
    if (in_order) return;
    for (size_t r = 0; r < buffers.size(); ++r)
      Set(rank_, buffers[r], static_cast<int64_t>(r));
  }

  const std::vector<int64_t>& KeyValues(RankKey key) const {
    switch (key) {
      case RankKey::kCrowd:
        return crowd_;
      case RankKey::kLength:
        return keys_.length;
      case RankKey::kArea:
        return keys_.area;
      case RankKey::kSpan:
        return keys_.span;
      case RankKey::kSize:
        return keys_.size;
    }
    return crowd_;
  }

  void Place(int32_t b, int64_t offset) {
    const PlacementBuffer& buffer = problem_.buffers[static_cast<size_t>(b)];
    const int64_t top = offset + buffer.size;
    offset_[static_cast<size_t>(b)] = offset;
    placed_.push_back(b);
    ++stamp_;
    for (int32_t other : space_.overlaps[static_cast<size_t>(b)]) {
      const auto o = static_cast<size_t>(other);
      if (offset_[o] >= 0) continue;
      --open_[o];
      if (candidate_[o] >= top) continue;
      Set(candidate_, other, AlignUp(top, problem_.buffers[o].alignment));
      // Sections that relied on `other` to fit must find another witness.
      if (options_.raise_floors) MarkWitnessed(other);
    }
    const SectionRange range = space_.sections.of_buffer[static_cast<size_t>(b)];
    MarkChanged(range);
    for (int32_t s = range.first; s < range.last; ++s) {
      const auto i = static_cast<size_t>(s);
      // With raised floors the lowest candidate of a section is never below its floor
      // (every unplaced member overlaps every placed one), so floors are kept only
      // without them.
      if (!options_.raise_floors && floor_[i] < top) Set(floor_, s, top);
      remaining_[i] -= buffer.size;
      if (s + 1 < range.last) --spanning_[i];
      RemoveMember(s, b);
    }
  }

  // Reverses Place's arithmetic (the trail restores the rest). Buffers come off in the
  // reverse order of their placement.
  void Unplace(int32_t b) {
    const PlacementBuffer& buffer = problem_.buffers[static_cast<size_t>(b)];
    const SectionRange range = space_.sections.of_buffer[static_cast<size_t>(b)];
    for (int32_t s = range.first; s < range.last; ++s) {
      const auto i = static_cast<size_t>(s);
      remaining_[i] += buffer.size;
      if (s + 1 < range.last) ++spanning_[i];
      ++unplaced_members_[i];  // b is right behind the unplaced front.
    }
    for (int32_t other : space_.overlaps[static_cast<size_t>(b)]) {
      if (offset_[static_cast<size_t>(other)] < 0) ++open_[static_cast<size_t>(other)];
    }
    offset_[static_cast<size_t>(b)] = -1;
  }

  // Records the sections of `range` for the next check, each once per placement.
  void MarkChanged(SectionRange range) {
    if (!options_.section_bound) return;
    for (int32_t s = range.first; s < range.last; ++s) MarkChanged(s);
  }
  void MarkChanged(int32_t s) {
    if (marked_[static_cast<size_t>(s)] == stamp_) return;
    marked_[static_cast<size_t>(s)] = stamp_;
    changed_.push_back(s);
  }
  // Marks the sections whose raised floor `b` witnesses.
  void MarkWitnessed(int32_t b) {
    for (int32_t s : witnessed_[static_cast<size_t>(b)]) {
      if (witness_[static_cast<size_t>(s)] == b) MarkChanged(s);
    }
  }
  void SetWitness(int32_t s, int32_t b) {
    Set(witness_, s, b);
    witnessed_[static_cast<size_t>(b)].push_back(s);
    witness_pushes_.push_back(b);
  }

  // Moves placed `b` out of the unplaced front of section `s`'s members. Unplace only
  // grows the front again: undoing removals in reverse order brings each buffer back
  // into it, wherever the swaps left it.
  void RemoveMember(int32_t s, int32_t b) {
    std::vector<int32_t>& members = members_[static_cast<size_t>(s)];
    const int64_t last = --unplaced_members_[static_cast<size_t>(s)];
    int32_t& slot = Slot(b, s);
    const int32_t moved = members[static_cast<size_t>(last)];
    Slot(moved, s) = slot;
    std::swap(members[static_cast<size_t>(slot)], members[static_cast<size_t>(last)]);
    slot = static_cast<int32_t>(last);
  }
  // Where `b` sits among section `s`'s members.
  int32_t& Slot(int32_t b, int32_t s) {
    const int32_t first = space_.sections.of_buffer[static_cast<size_t>(b)].first;
    return slots_[static_cast<size_t>(slot_base_[static_cast<size_t>(b)] + s - first)];
  }

  // Cross-section sums: every unplaced buffer of a section goes at or above the last
  // offset, the section's floor and (raised floors) the lowest candidate among them.
  //
  // The search checks every section once, at the start; after that a section can only
  // fail where Place changed it (sizes left, floor, or its witness moved or was placed)
  // or where the last offset rose, so only those are checked again.
  bool SectionFits(int32_t s, int64_t last_offset) {
    const auto i = static_cast<size_t>(s);
    const int64_t remaining = remaining_[i];
    if (remaining == 0) return true;
    const int64_t limit = capacity_ - remaining;  // The highest floor that fits.
    if (last_offset > limit) return false;
    if (!options_.raise_floors) return floor_[i] <= limit;
    // Raised floor: some unplaced member must be able to go at or below the limit.
    // Its witness still shows it unless it moved up or was placed, and then Place
    // marked the section (MarkWitnessed, MarkChanged).
    const int64_t witness = witness_[i];
    if (witness >= 0 && offset_[static_cast<size_t>(witness)] < 0 &&
        Candidate(static_cast<int32_t>(witness)) <= limit) {
      return true;
    }
    const std::vector<int32_t>& members = members_[i];
    const auto count = static_cast<size_t>(unplaced_members_[i]);
    for (size_t k = 0; k < count; ++k) {
      if (Candidate(members[k]) <= limit) {
        SetWitness(s, members[k]);
        return true;
      }
    }
    return false;
  }
  bool SectionFits(SectionRange range, int64_t last_offset) {
    for (int32_t s = range.first; s < range.last; ++s) {
      if (!SectionFits(s, last_offset)) return false;
    }
    return true;
  }
  // A child just placed at `offset`: the sections it changed, and the rest against its
  // offset (`fullest` is the largest unplaced sum at its parent; sums only shrink).
  bool ChildFits(SectionRange range, int64_t offset, int64_t fullest) {
    if (!options_.section_bound) return true;
    const bool offset_fits =
        offset + fullest <= capacity_ || offset + FullestSection(range) <= capacity_;
    return ChangedSectionsFit(offset) && offset_fits;  // Always clears the list.
  }
  bool ChangedSectionsFit(int64_t last_offset) {
    bool fits = true;
    for (int32_t s : changed_) fits = fits && SectionFits(s, last_offset);
    changed_.clear();
    return fits;
  }
  int64_t FullestSection(SectionRange range) const {
    int64_t fullest = 0;
    for (int32_t s = range.first; s < range.last; ++s)
      fullest = std::max(fullest, remaining_[static_cast<size_t>(s)]);
    return fullest;
  }

  const SearchSpace& space_;
  const Partition& partition_;
  const PlacementProblem& problem_;
  const RankRule& rule_;
  const StaticKeys& keys_;
  const int64_t capacity_;
  const ExactOptions& options_;
  const int64_t node_limit_;
  const Budget& budget_;  // Only its clock and stop flag: work is counted per round.

  std::vector<int64_t> offset_;  // -1 while unplaced.
  // The lowest aligned offset at or above every placed buffer each one overlaps.
  std::vector<int64_t> candidate_;
  std::vector<int64_t> floor_;      // Highest top placed in each section (kept only
                                    // without raised floors).
  std::vector<int64_t> remaining_;  // Sizes still to place in each section.
  std::vector<int64_t> spanning_;   // Unplaced buffers crossing each section's end.
  std::vector<int64_t> open_;       // Unplaced buffers overlapping each buffer.
  std::vector<int64_t> rank_;       // Ties among candidates go to the lower rank.
  std::vector<int64_t> crowd_;      // Rank's scratch.
  std::vector<int64_t> marked_;  // The placement that last marked each section changed.
  int64_t stamp_ = 0;
  // Per section: an unplaced member that showed the raised floor fits (-1 before the
  // first check); per buffer, the sections it was made witness of (entries whose
  // witness changed since stay: MarkWitnessed skips them). Both follow undo: the
  // witness through the trail, the lists through witness_pushes_.
  std::vector<int64_t> witness_;
  std::vector<std::vector<int32_t>> witnessed_;
  std::vector<int32_t> witness_pushes_;  // The buffer of each push, in order.
  std::vector<int32_t> placed_;          // In placement order.
  // Each section's members, the unplaced ones first (a sparse set), so that looking for
  // a witness never walks past placed buffers.
  std::vector<std::vector<int32_t>> members_;
  std::vector<int64_t> unplaced_members_;  // How many of members_[s] are unplaced.
  std::vector<int64_t> slot_base_;         // Where each buffer's slots begin in slots_,
  std::vector<int32_t> slots_;    // one per section it spans: its place in members_.
  std::vector<int32_t> changed_;  // Sections Place changed since the last check.
  std::vector<Change> trail_;
  int64_t nodes_ = 0;
  bool aborted_ = false;
};

// Searches one partition with every rank order, round robin, doubling the node limit
// each round; the rank orders of a round run on `threads` threads and the earliest
// conclusive one wins, so the answer does not depend on the thread count. The first
// round allows little more than one dive per order: on real traces some order usually
// places everything without backtracking (tiny_bert: the third order, in 1,820 nodes
// for 1,821 buffers), so the others should not spend long before it gets its turn.
Feasibility SolvePartition(const SearchSpace& space, const Partition& partition,
                           int64_t capacity, const ExactOptions& options,
                           const Budget& budget, std::vector<int64_t>& offsets,
                           int64_t& nodes) {
  int64_t limit =
      std::max<int64_t>(1000, static_cast<int64_t>(partition.buffers.size()) * 5 / 4);
  const size_t stack_bytes = StackForRecursion(partition.buffers.size());
  while (!budget.Exhausted()) {
    const int64_t round_limit = std::min(limit, budget.work_left());
    struct Run {
      Outcome outcome = Outcome::kAborted;
      std::vector<int64_t> offsets;
      int64_t nodes = 0;
    };
    std::vector<Run> runs(kRankRules.size());
    for (size_t first = 0; first < kRankRules.size() && !budget.OutOfTime();
         first += static_cast<size_t>(options.threads)) {
      const size_t last =
          std::min(kRankRules.size(), first + static_cast<size_t>(options.threads));
      auto run = [&](size_t r) {
        runs[r].offsets = offsets;
        Searcher searcher(space, partition, kRankRules[r], capacity, options, round_limit,
                          budget);
        runs[r].outcome = searcher.Run(runs[r].offsets);
        runs[r].nodes = searcher.nodes();
      };
      {
        // The search recurses one level per buffer placed: every run gets a thread
        // with a stack to match.
        std::vector<std::unique_ptr<StackThread>> workers;
        for (size_t r = first; r < last; ++r) {
          workers.push_back(
              std::make_unique<StackThread>(stack_bytes, [&run, r] { run(r); }));
        }
      }  // Joined here.
      // Work is counted as if the runs had gone one after another and stopped at the
      // first conclusive one, so the budget is spent the same on any thread count.
      for (size_t r = first; r < last; ++r) {
        nodes += runs[r].nodes;
        budget.Spend(runs[r].nodes);
        if (runs[r].outcome == Outcome::kFound) {
          offsets = std::move(runs[r].offsets);
          return Feasibility::kFits;
        }
        if (runs[r].outcome == Outcome::kExhausted) return Feasibility::kDoesNotFit;
      }
    }
    limit *= 2;
  }
  return Feasibility::kUnknown;
}

CapacitySearch FitUntil(const SearchSpace& space, int64_t capacity,
                        const ExactOptions& options, const Budget& budget) {
  CapacitySearch result;
  result.offsets.assign(space.problem.buffers.size(), 0);
  result.feasibility = Feasibility::kFits;
  for (const Partition& partition : space.partitions) {
    const Feasibility part = SolvePartition(space, partition, capacity, options, budget,
                                            result.offsets, result.nodes);
    if (part == Feasibility::kDoesNotFit) {
      result.feasibility = Feasibility::kDoesNotFit;
      break;
    }
    if (part == Feasibility::kUnknown) result.feasibility = Feasibility::kUnknown;
  }
  if (result.feasibility != Feasibility::kFits) result.offsets.clear();
  return result;
}

}  // namespace

CapacitySearch FitUnderCapacity(const PlacementProblem& problem, int64_t capacity,
                                const ExactOptions& options, const Budget& budget) {
  OLLA_CHECK(!HasFixedOffsets(problem), "the exact search does not take fixed offsets");
  return FitUntil(SearchSpace(problem, options.decompose), capacity, options, budget);
}

Placement ExactPlacer::Place(const PlacementProblem& problem,
                             const Budget& budget) const {
  Placement best = BestGreedyPlacement(problem, options_.threads, budget);
  if (best.optimal() || HasFixedOffsets(problem)) return best;
  // On the largest traces the greedy start alone can take most of the time.
  if (budget.Exhausted()) {
    best.stopped_by = budget.Reached();
    return best;
  }
  const SearchSpace space(problem, options_.decompose);
  // Every arena is a sum of sizes and alignment padding: a multiple of their gcd.
  int64_t granularity = 0;
  for (const PlacementBuffer& b : problem.buffers) {
    granularity = std::gcd(granularity, std::gcd(b.size, b.alignment));
  }
  granularity = std::max<int64_t>(granularity, 1);
  auto round_up = [&](int64_t bytes) { return AlignUp(bytes, granularity); };
  // Bisection between the proven bound and the best arena. Each probe gets a share of
  // what is left; a probe that runs out is taken as "probably too tight" and the next
  // one goes higher, but only a refutation raises the proven bound. The first probe is
  // the bound itself: real traces usually reach it.
  int64_t bound = round_up(best.lower_bound_bytes);  // Proven.
  int64_t low = bound;                               // Lowest capacity worth a probe.
  int64_t capacity = bound;
  while (low < best.arena_bytes && !budget.Exhausted()) {
    // The probe at the bound gets three quarters of everything, later ones a quarter of
    // what is left: real traces usually reach the bound.
    const double share = capacity == round_up(best.lower_bound_bytes) ? 0.75 : 0.25;
    const CapacitySearch search =
        FitUntil(space, capacity, options_, budget.Split(share));
    if (search.feasibility == Feasibility::kFits) {
      best.offsets = search.offsets;
      best.arena_bytes = ArenaOf(problem, best.offsets);
      best.method = "exact";
    } else {
      if (search.feasibility == Feasibility::kDoesNotFit) bound = round_up(capacity + 1);
      low = round_up(capacity + 1);
    }
    capacity = round_up(low + (best.arena_bytes - granularity - low) / 2);
    if (capacity >= best.arena_bytes) break;
  }
  best.lower_bound_bytes = std::min(bound, best.arena_bytes);
  if (!best.optimal()) best.stopped_by = budget.Reached();
  return best;
}

}  // namespace olla
