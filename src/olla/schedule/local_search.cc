#include "olla/schedule/local_search.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace olla {
namespace {

// Free ancestors and descendants of each free op that bound where it may move: the free
// ops reached from it through ops timed by rule only.
struct Windows {
  std::vector<std::vector<OpId>> before;  // Free ops that must precede.
  std::vector<std::vector<OpId>> after;   // Free ops that must follow.
};

Windows ComputeWindows(const Graph& graph, const Timings& timings) {
  Windows windows;
  const auto n = static_cast<size_t>(graph.num_ops());
  windows.before.resize(n);
  windows.after.resize(n);
  std::vector<int32_t> seen(n, -1);
  for (int32_t i = 0; i < graph.num_ops(); ++i) {
    const OpId op(i);
    if (!timings.free(op)) continue;
    for (bool forward : {false, true}) {
      std::vector<OpId> stack = {op};
      const int32_t mark = forward ? 2 * i + 1 : 2 * i;
      while (!stack.empty()) {
        const OpId current = stack.back();
        stack.pop_back();
        const auto next =
            forward ? graph.successors(current) : graph.predecessors(current);
        for (OpId neighbour : next) {
          if (seen[neighbour.index()] == mark) continue;
          seen[neighbour.index()] = mark;
          if (!timings.free(neighbour)) {
            stack.push_back(neighbour);
          } else {
            (forward ? windows.after : windows.before)[op.index()].push_back(neighbour);
          }
        }
      }
    }
  }
  return windows;
}

class Search {
 public:
  Search(const MemoryModel& model, const Timings& timings, const Order& start,
         const LocalSearchOptions& options)
      : model_(model),
        timings_(timings),
        options_(options),
        rng_(options.seed),
        windows_(ComputeWindows(model.graph(), timings)) {
    for (OpId op : start.ops) {
      if (timings.free(op)) sequence_.push_back(op);
    }
    position_.assign(static_cast<size_t>(model.graph().num_ops()), -1);
    Reindex(0, static_cast<int32_t>(sequence_.size()));
    // About sqrt(n) checkpoints, each a copy of the executor (O(ops + buffers)), but
    // never more than kCheckpointBytes in all: at a million ops sqrt(n) of them would
    // take 16 GB.
    const Graph& graph = model.graph();
    const int64_t executor_bytes =
        32 * (int64_t{graph.num_ops()} + graph.num_buffers()) + 1024;
    const int64_t most_checkpoints =
        std::max<int64_t>(1, kCheckpointBytes / executor_bytes);
    const auto free_ops = static_cast<int64_t>(sequence_.size());
    checkpoint_every_ = static_cast<int32_t>(
        std::max({int64_t{16}, static_cast<int64_t>(std::sqrt(free_ops)),
                  free_ops / most_checkpoints + 1}));
    peak_ = Evaluate(0, INT64_MAX);
    best_peak_ = peak_;
    best_ = sequence_;
  }

  LocalSearchResult Run(const Budget& budget) {
    LocalSearchResult result;
    int64_t since_improvement = 0;
    const int64_t patience =
        std::max<int64_t>(2000, 20 * static_cast<int64_t>(sequence_.size()));
    const int64_t max_moves = std::min(options_.max_moves, budget.work_left());
    while (result.moves < max_moves && best_peak_ > options_.target_peak &&
           sequence_.size() > 1) {
      if ((result.moves & 255) == 0 && budget.OutOfTime()) break;
      ++result.moves;
      if (TryMove()) {
        if (peak_ < best_peak_) {
          best_peak_ = peak_;
          best_ = sequence_;
          ++result.improvements;
          since_improvement = 0;
        }
      }
      if (++since_improvement > patience) {
        Restart();
        since_improvement = 0;
      }
    }
    budget.Spend(result.moves);
    Executor executor(model_, timings_);
    for (OpId op : best_) executor.Run(op);
    result.order = executor.TakeOrder();
    result.peak_bytes = best_peak_;
    return result;
  }

 private:
  void Reindex(int32_t from, int32_t to) {
    for (int32_t i = from; i < to; ++i)
      position_[sequence_[static_cast<size_t>(i)].index()] = i;
  }

  // Replays the sequence from position `from` (reusing the saved state before it) and
  // returns its peak, or a value >= `give_up` as soon as the peak reaches that.
  int64_t Evaluate(int32_t from, int64_t give_up) {
    DropCheckpointsAfter(from);
    if (checkpoints_.empty()) {
      checkpoints_.push_back({Executor(model_, timings_), 0});
      checkpoints_.back().peak = checkpoints_.back().executor.memory().steps() > 0
                                     ? checkpoints_.back().executor.memory().peak_bytes()
                                     : 0;
    }
    Checkpoint state = checkpoints_.back();
    auto i = static_cast<int32_t>((checkpoints_.size() - 1) *
                                  static_cast<size_t>(checkpoint_every_));
    const auto n = static_cast<int32_t>(sequence_.size());
    for (; i < n; ++i) {
      if (i % checkpoint_every_ == 0 &&
          static_cast<size_t>(i / checkpoint_every_) == checkpoints_.size())
        checkpoints_.push_back(state);
      state.peak =
          std::max(state.peak, state.executor.Run(sequence_[static_cast<size_t>(i)]));
      if (state.peak >= give_up) return state.peak;
    }
    return state.peak;
  }

  // Keeps the saved states before positions up to `position` (the others replayed a
  // sequence that has changed since).
  void DropCheckpointsAfter(int32_t position) {
    const auto keep = static_cast<size_t>(position / checkpoint_every_) + 1;
    if (checkpoints_.size() > keep)
      checkpoints_.erase(checkpoints_.begin() + static_cast<std::ptrdiff_t>(keep),
                         checkpoints_.end());
  }

  void Move(int32_t from, int32_t to) {
    const auto begin = sequence_.begin();
    if (from < to) {
      std::rotate(begin + from, begin + from + 1, begin + to + 1);
    } else {
      std::rotate(begin + to, begin + from, begin + from + 1);
    }
    Reindex(std::min(from, to), std::max(from, to) + 1);
  }

  // The range of positions op may take.
  std::pair<int32_t, int32_t> WindowOf(OpId op) const {
    int32_t low = 0;
    auto high = static_cast<int32_t>(sequence_.size()) - 1;
    for (OpId before : windows_.before[op.index()])
      low = std::max(low, position_[before.index()] + 1);
    for (OpId after : windows_.after[op.index()])
      high = std::min(high, position_[after.index()] - 1);
    return {low, high};
  }

  bool TryMove() {
    const auto n = static_cast<int32_t>(sequence_.size());
    // Half the time, an op near the step where the peak happens.
    int32_t from = 0;
    if (rng_() % 2 == 0) {
      from = std::uniform_int_distribution<int32_t>(0, n - 1)(rng_);
    } else {
      const int32_t spread = std::max(4, n / 20);
      from = std::clamp(
          PeakPosition() + std::uniform_int_distribution<int32_t>(-spread, spread)(rng_),
          0, n - 1);
    }
    const OpId op = sequence_[static_cast<size_t>(from)];
    const auto [low, high] = WindowOf(op);
    if (low >= high) return false;
    int32_t to = std::uniform_int_distribution<int32_t>(low, high - 1)(rng_);
    if (to >= from) ++to;
    Move(from, to);
    const int64_t peak = Evaluate(std::min(from, to), peak_ + 1);
    if (peak <= peak_) {
      peak_ = peak;
      peak_position_ = -1;
      return true;
    }
    Move(to, from);
    DropCheckpointsAfter(std::min(from, to));
    return false;
  }

  // The position of the free op during whose step the peak is first reached.
  int32_t PeakPosition() {
    if (peak_position_ >= 0) return peak_position_;
    Executor executor(model_, timings_);
    int64_t most = -1;
    int32_t at = 0;
    for (size_t i = 0; i < sequence_.size(); ++i) {
      const int64_t during = executor.Run(sequence_[i]);
      if (during > most) {
        most = during;
        at = static_cast<int32_t>(i);
      }
    }
    peak_position_ = at;
    return at;
  }

  void Restart() {
    sequence_ = best_;
    Reindex(0, static_cast<int32_t>(sequence_.size()));
    const auto n = static_cast<int32_t>(sequence_.size());
    for (int32_t k = 0; k < std::max(1, n / 50); ++k) {
      const int32_t from = std::uniform_int_distribution<int32_t>(0, n - 1)(rng_);
      const auto [low, high] = WindowOf(sequence_[static_cast<size_t>(from)]);
      if (low >= high) continue;
      int32_t to = std::uniform_int_distribution<int32_t>(low, high - 1)(rng_);
      if (to >= from) ++to;
      Move(from, to);
    }
    checkpoints_.clear();
    peak_ = Evaluate(0, INT64_MAX);
    peak_position_ = -1;
  }

  struct Checkpoint {
    Executor executor;
    int64_t peak = 0;
  };

  const MemoryModel& model_;
  const Timings& timings_;
  const LocalSearchOptions options_;
  std::mt19937_64 rng_;
  const Windows windows_;
  std::vector<OpId> sequence_;
  std::vector<int32_t> position_;
  static constexpr int64_t kCheckpointBytes = int64_t{1} << 30;
  int32_t checkpoint_every_ = 64;
  std::vector<Checkpoint>
      checkpoints_;  // checkpoints_[k]: state before position k * every.
  int64_t peak_ = 0;
  int32_t peak_position_ = -1;  // Cached; -1 when the sequence changed since.
  int64_t best_peak_ = 0;
  std::vector<OpId> best_;
};

}  // namespace

LocalSearchResult LocalSearch(const MemoryModel& model, const Timings& timings,
                              const Order& start, const LocalSearchOptions& options,
                              const Budget& budget) {
  return Search(model, timings, start, options).Run(budget);
}

}  // namespace olla
