// OrderSearch: the interface every scheduling method implements, as Placer is
// placement's, so that methods compose. A search improves a shared state: the best order
// found so far and the bound proven under it. Heuristics, pieces, the lifetime ILP and
// local search are implementations (order_searches.h); a sequence, a share of the budget
// and the bound raising are wrappers (search_wrappers.h); each method of Schedule() is
// one composition of them (scheduler.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "olla/core/budget.h"
#include "olla/schedule/executor.h"
#include "olla/schedule/heuristics.h"
#include "olla/schedule/memory_state.h"
#include "olla/schedule/scheduler.h"

namespace olla {

// What every search reads and none changes: the graph's memory model, the rules orders
// follow, the forced-live bytes per op (lower_bounds.h) and the caller's options.
class SearchContext {
 public:
  SearchContext(const MemoryModel& model, const ScheduleRules& rules,
                const std::vector<int64_t>& forced_live, const ScheduleOptions& options)
      : model_(model), rules_(rules), forced_live_(forced_live), options_(options) {}

  const MemoryModel& model() const { return model_; }
  const Graph& graph() const { return model_.graph(); }
  const ScheduleRules& rules() const { return rules_; }
  const std::vector<int64_t>& forced_live() const { return forced_live_; }
  const ScheduleOptions& options() const { return options_; }
  // Built on first use: a second at a million ops, which the heuristics alone skip.
  const Timings& timings() const {
    if (!timings_) timings_.emplace(model_, rules_);
    return *timings_;
  }
  void Progress(const std::string& stage) const {
    if (options_.progress) options_.progress(stage);
  }

 private:
  const MemoryModel& model_;
  const ScheduleRules& rules_;
  const std::vector<int64_t>& forced_live_;
  const ScheduleOptions& options_;
  mutable std::optional<Timings> timings_;
};

// The best order found so far (result.order, peak_bytes, method) and the bound proven
// (result.lower_bound_bytes and its provenance): what Schedule() returns once every
// search has run.
struct SearchState {
  ScheduleResult result;
  // The last order the bound was raised at (search_wrappers.h), so that an order no
  // search improved is not cut twice.
  Order bound_raised_at;

  bool settled() const { return result.peak_bytes <= result.lower_bound_bytes; }
  // Makes `start` the best order, and the best heuristic (the eager order under the
  // rules is one).
  void StartFrom(ScoredOrder start) {
    result.best_heuristic = result.method = start.method;
    result.best_heuristic_peak_bytes = result.peak_bytes = start.peak_bytes;
    result.order = std::move(start.order);
  }
  // Keeps `order` if it peaks lower than the best so far.
  void Offer(const std::string& method, Order order, int64_t peak_bytes) {
    if (peak_bytes >= result.peak_bytes) return;
    result.method = method;
    result.order = std::move(order);
    result.peak_bytes = peak_bytes;
  }
};

class OrderSearch {
 public:
  virtual ~OrderSearch() = default;
  // Improves `state` within `budget`: its order never gets worse, its bound never lower,
  // every order it keeps follows the context's rules.
  virtual void Improve(const SearchContext& context, SearchState& state,
                       const Budget& budget) const = 0;
};

}  // namespace olla
