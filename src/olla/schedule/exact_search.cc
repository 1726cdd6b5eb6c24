#include "olla/schedule/exact_search.h"

#include <algorithm>
#include <unordered_map>

#include "olla/core/stack_thread.h"

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
  PieceSearch(const MemoryModel& model, const std::vector<int64_t>& forced_live,
              const Executor& start, const std::vector<OpId>& free_ops, int64_t incumbent,
              int64_t good_enough, const ExactSearchLimits& limits, const Budget& budget)
      : model_(model),
        graph_(model.graph()),
        forced_live_(forced_live),
        free_ops_(free_ops),
        good_enough_(good_enough),
        limits_(limits),
        budget_(budget),
        node_limit_(std::min(limits.max_nodes, budget.work_left())),
        // A node looks at every free op of the piece: the clock is read about once per
        // million ops looked at, at least every 1024 nodes.
        clock_every_(std::clamp<int64_t>(
            (int64_t{1} << 20) /
                std::max<int64_t>(1, static_cast<int64_t>(free_ops.size())),
            1, 1024)),
        best_(incumbent),
        local_(static_cast<size_t>(graph_.num_ops()), -1),
        bits_((free_ops.size() + 63) / 64, 0),
        executor_(start) {
    executor_.set_track_ready(false);
    for (size_t i = 0; i < free_ops.size(); ++i)
      local_[free_ops[i].index()] = static_cast<int32_t>(i);
  }

  ExactSearchResult Run() {
    Search(0, 0);
    budget_.Spend(nodes_);
    ExactSearchResult result;
    result.complete = !stopped_;
    result.improved = !best_ops_.empty();
    result.ops = std::move(best_ops_);
    result.peak_bytes = best_;
    result.states = static_cast<int64_t>(memo_.size());
    return result;
  }

 private:
  bool OutOfBudget() {
    if (memo_.size() >= static_cast<size_t>(limits_.max_memo_states)) return true;
    // Per state: the key's words and the hash node around them.
    const auto state_bytes = static_cast<int64_t>(bits_.size() * sizeof(uint64_t) + 64);
    if (static_cast<int64_t>(memo_.size()) * state_bytes >= limits_.max_memo_bytes)
      return true;
    if (++nodes_ >= node_limit_) return true;
    if (nodes_ % clock_every_ == 0 && budget_.OutOfTime()) return true;
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
        best_ops_ = path_;
        if (best_ <= good_enough_) stopped_ = true;
      }
      return;
    }
    int64_t bound = peak;
    std::vector<std::pair<int64_t, OpId>> children;
    const MemoryState& memory = executor_.memory();
    for (OpId op : free_ops_) {
      if (executor_.done(op)) continue;
      bound = std::max(bound, forced_live_[op.index()]);
      if (executor_.ready(op))
        children.push_back({model_.allocated_bytes(op) - memory.BytesFreedBy(op), op});
    }
    if (bound >= best_) return;
    auto [memo, inserted] = memo_.try_emplace(bits_, peak);
    if (!inserted) {
      if (memo->second <= peak) return;
      memo->second = peak;
    }
    std::sort(children.begin(), children.end());
    for (const auto& [effect, op] : children) {
      const int32_t mark = executor_.order().size();
      const int64_t child_peak = std::max(peak, executor_.Run(op));
      if (child_peak < best_) {
        const auto index = static_cast<size_t>(local_[op.index()]);
        bits_[index / 64] |= uint64_t{1} << (index % 64);
        path_.push_back(op);
        Search(child_peak, completed + 1);
        path_.pop_back();
        bits_[index / 64] &= ~(uint64_t{1} << (index % 64));
      }
      executor_.UndoTo(mark);
      if (stopped_) return;
    }
  }

  const MemoryModel& model_;
  const Graph& graph_;
  const std::vector<int64_t>& forced_live_;
  const std::vector<OpId>& free_ops_;
  const int64_t good_enough_;
  const ExactSearchLimits limits_;
  const Budget& budget_;
  const int64_t node_limit_;
  const int64_t clock_every_;

  int64_t best_;
  std::vector<OpId> best_ops_;
  bool stopped_ = false;
  int64_t nodes_ = 0;

  std::vector<int32_t> local_;  // Index of a free op of the piece, or -1.
  std::vector<uint64_t> bits_;  // The completed free ops of the piece.
  std::unordered_map<std::vector<uint64_t>, int64_t, BitsHash> memo_;
  Executor executor_;
  std::vector<OpId> path_;  // The free ops run so far, in order.
};

}  // namespace

ExactSearchResult SearchPiece(const MemoryModel& model,
                              const std::vector<int64_t>& forced_live,
                              const Executor& start, const std::vector<OpId>& free_ops,
                              int64_t incumbent_peak, int64_t good_enough,
                              const ExactSearchLimits& limits, const Budget& budget) {
  // The search recurses one level per op run: a piece of 100,000 ops would overflow
  // the default stack, so it runs on a thread with a stack sized to the piece.
  ExactSearchResult result;
  {
    StackThread thread(StackForRecursion(free_ops.size()), [&] {
      result = PieceSearch(model, forced_live, start, free_ops, incumbent_peak,
                           good_enough, limits, budget)
                   .Run();
    });
  }  // Joined here, before `result` is read.
  return result;
}

}  // namespace olla
