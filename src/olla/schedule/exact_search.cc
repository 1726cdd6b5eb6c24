#include "olla/schedule/exact_search.h"

#include <algorithm>
#include <unordered_map>

namespace olla {
namespace {

struct BitsHash {
  size_t operator()(const std::vector<uint64_t>& bits) const {
    uint64_t hash = 0x9e3779b97f4a7c15ULL;
    for (uint64_t word : bits) hash = (hash ^ word) * 0xff51afd7ed558ccdULL;
    return static_cast<size_t>(hash ^ (hash >> 29));
  }
};

class PieceSearch {
 public:
  PieceSearch(const MemoryModel& model, const std::vector<bool>& asap,
              const std::vector<int64_t>& forced_live, const Executor& start,
              const std::vector<OpId>& free_ops, int64_t incumbent, int64_t good_enough,
              const ExactSearchLimits& limits)
      : model_(model),
        graph_(model.graph()),
        asap_(asap),
        forced_live_(forced_live),
        free_ops_(free_ops),
        good_enough_(good_enough),
        limits_(limits),
        best_(incumbent),
        local_(static_cast<size_t>(graph_.num_ops()), -1),
        bits_((free_ops.size() + 63) / 64, 0),
        remaining_(static_cast<size_t>(graph_.num_buffers())),
        waiting_(static_cast<size_t>(graph_.num_ops())),
        done_(static_cast<size_t>(graph_.num_ops())),
        live_(start.memory().live_bytes()),
        steps_before_(start.memory().steps()) {
    for (size_t i = 0; i < free_ops.size(); ++i)
      local_[free_ops[i].index()] = static_cast<int32_t>(i);
    for (int32_t b = 0; b < graph_.num_buffers(); ++b)
      remaining_[static_cast<size_t>(b)] = start.memory().remaining_holders(BufferId(b));
    for (int32_t i = 0; i < graph_.num_ops(); ++i) {
      waiting_[static_cast<size_t>(i)] = start.waiting(OpId(i));
      done_[static_cast<size_t>(i)] = start.done(OpId(i));
    }
  }

  ExactSearchResult Run() {
    Search(0, 0);
    ExactSearchResult result;
    result.complete = !stopped_;
    result.improved = !best_ops_.empty();
    result.ops = std::move(best_ops_);
    result.peak_bytes = best_;
    result.states = static_cast<int64_t>(memo_.size());
    return result;
  }

 private:
  struct TrailEntry {
    OpId op;
    int64_t live_before;
  };

  void RunOp(OpId op, int64_t& peak) {
    trail_.push_back({op, live_});
    peak = std::max(peak, live_ + model_.allocated_bytes(op) + graph_.op(op).workspace);
    live_ += model_.allocated_bytes(op);
    for (BufferId b : model_.touched(op)) {
      if (--remaining_[b.index()] == 0) live_ -= graph_.buffer(b).size;
    }
    if (steps_before_ + static_cast<int64_t>(trail_.size()) == 1) {
      for (BufferId b : model_.unused_inputs()) {  // Live for the first step only.
        if (remaining_[b.index()] == 0 && !graph_.buffer(b).output)
          live_ -= graph_.buffer(b).size;
      }
    }
    done_[op.index()] = true;
    for (OpId next : graph_.successors(op)) {
      if (--waiting_[next.index()] == 0 && asap_[next.index()])
        asap_ready_.push_back(next);
    }
  }

  // Runs a ready free op and then, as the Executor does, every ASAP op that becomes
  // ready, lowest id first.
  void Step(OpId op, int64_t& peak) {
    RunOp(op, peak);
    while (!asap_ready_.empty()) {
      const auto lowest = std::min_element(asap_ready_.begin(), asap_ready_.end());
      const OpId next = *lowest;
      asap_ready_.erase(lowest);
      RunOp(next, peak);
    }
  }

  void UndoTo(size_t trail_size) {
    while (trail_.size() > trail_size) {
      const TrailEntry entry = trail_.back();
      trail_.pop_back();
      done_[entry.op.index()] = false;
      for (OpId next : graph_.successors(entry.op)) ++waiting_[next.index()];
      for (BufferId b : model_.touched(entry.op)) ++remaining_[b.index()];
      live_ = entry.live_before;
    }
  }

  bool OutOfBudget() {
    if (memo_.size() >= static_cast<size_t>(limits_.max_memo_states)) return true;
    if ((++nodes_ & 1023) == 0 && std::chrono::steady_clock::now() >= limits_.deadline)
      return true;
    return false;
  }

  void Search(int64_t peak, int32_t completed) {
    if (stopped_ || OutOfBudget()) {
      stopped_ = true;
      return;
    }
    if (completed == static_cast<int32_t>(free_ops_.size())) {
      if (peak < best_) {
        best_ = peak;
        best_ops_.clear();
        for (const TrailEntry& entry : trail_) best_ops_.push_back(entry.op);
        if (best_ <= good_enough_) stopped_ = true;
      }
      return;
    }
    int64_t bound = peak;
    std::vector<std::pair<int64_t, OpId>> children;
    for (OpId op : free_ops_) {
      if (done_[op.index()]) continue;
      bound = std::max(bound, forced_live_[op.index()]);
      if (waiting_[op.index()] == 0) {
        int64_t freed = 0;
        for (BufferId b : model_.touched(op)) {
          if (remaining_[b.index()] == 1) freed += graph_.buffer(b).size;
        }
        children.push_back({model_.allocated_bytes(op) - freed, op});
      }
    }
    if (bound >= best_) return;
    auto [memo, inserted] = memo_.try_emplace(bits_, peak);
    if (!inserted) {
      if (memo->second <= peak) return;
      memo->second = peak;
    }
    std::sort(children.begin(), children.end());
    for (const auto& [effect, op] : children) {
      const size_t mark = trail_.size();
      int64_t child_peak = peak;
      Step(op, child_peak);
      if (child_peak < best_) {
        const auto index = static_cast<size_t>(local_[op.index()]);
        bits_[index / 64] |= uint64_t{1} << (index % 64);
        Search(child_peak, completed + 1);
        bits_[index / 64] &= ~(uint64_t{1} << (index % 64));
      }
      UndoTo(mark);
      if (stopped_) return;
    }
  }

  const MemoryModel& model_;
  const Graph& graph_;
  const std::vector<bool>& asap_;
  const std::vector<int64_t>& forced_live_;
  const std::vector<OpId>& free_ops_;
  const int64_t good_enough_;
  const ExactSearchLimits limits_;

  int64_t best_;
  std::vector<OpId> best_ops_;
  bool stopped_ = false;
  int64_t nodes_ = 0;

  std::vector<int32_t> local_;  // Index of a free op of the piece, or -1.
  std::vector<uint64_t> bits_;  // The completed free ops of the piece.
  std::unordered_map<std::vector<uint64_t>, int64_t, BitsHash> memo_;

  std::vector<int32_t> remaining_;
  std::vector<int32_t> waiting_;
  std::vector<bool> done_;
  int64_t live_;
  int64_t steps_before_;
  std::vector<TrailEntry> trail_;
  std::vector<OpId> asap_ready_;
};

}  // namespace

ExactSearchResult SearchPiece(const MemoryModel& model, const std::vector<bool>& asap,
                              const std::vector<int64_t>& forced_live,
                              const Executor& start, const std::vector<OpId>& free_ops,
                              int64_t incumbent_peak, int64_t good_enough,
                              const ExactSearchLimits& limits) {
  return PieceSearch(model, asap, forced_live, start, free_ops, incumbent_peak,
                     good_enough, limits)
      .Run();
}

}  // namespace olla
