#include "olla/placement/best_of.h"

#include <algorithm>
#include <thread>

#include "olla/core/check.h"

namespace olla {

BestOfPlacer::BestOfPlacer(std::string name, std::vector<std::unique_ptr<Placer>> placers,
                           int threads)
    : name_(std::move(name)), placers_(std::move(placers)), threads_(threads) {
  OLLA_CHECK(!placers_.empty(), "a best-of placer needs a placer");
  OLLA_CHECK(threads_ >= 1, "a best-of placer needs a thread");
}

Placement BestOfPlacer::Place(const PlacementProblem& problem,
                              const Budget& budget) const {
  std::vector<Placement> results(placers_.size());
  Placement best;
  int64_t bound = 0;
  const auto batch_size = static_cast<size_t>(threads_);
  for (size_t first = 0; first < placers_.size(); first += batch_size) {
    const size_t last = std::min(placers_.size(), first + batch_size);
    std::vector<std::thread> workers;
    for (size_t i = first + 1; i < last; ++i) {
      workers.emplace_back([&, i] { results[i] = placers_[i]->Place(problem, budget); });
    }
    results[first] = placers_[first]->Place(problem, budget);
    for (std::thread& worker : workers) worker.join();
    for (size_t i = first; i < last; ++i) {
      bound = std::max(bound, results[i].lower_bound_bytes);
      if (i == 0 || results[i].arena_bytes < best.arena_bytes)
        best = std::move(results[i]);
    }
    if (best.arena_bytes <= bound) break;
    if (budget.OutOfTime() && last < placers_.size()) {
      best.stopped_by = budget.Reached();
      break;
    }
  }
  best.lower_bound_bytes = bound;
  return best;
}

}  // namespace olla
