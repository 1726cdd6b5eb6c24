#include "olla/schedule/search_wrappers.h"

#include <chrono>
#include <utility>

#include "olla/analysis/case_split_bound.h"
#include "olla/analysis/min_cut_bound.h"
#include "olla/analysis/timeline.h"

namespace olla {
namespace {

class InSequence : public OrderSearch {
 public:
  explicit InSequence(std::vector<std::unique_ptr<OrderSearch>> steps)
      : steps_(std::move(steps)) {}
  void Improve(const SearchContext& context, SearchState& state,
               const Budget& budget) const override {
    for (const auto& step : steps_) step->Improve(context, state, budget);
  }

 private:
  std::vector<std::unique_ptr<OrderSearch>> steps_;
};

class Shared : public OrderSearch {
 public:
  Shared(double share, std::unique_ptr<OrderSearch> inner)
      : share_(share), inner_(std::move(inner)) {}
  void Improve(const SearchContext& context, SearchState& state,
               const Budget& budget) const override {
    inner_->Improve(context, state, budget.Split(share_));
  }

 private:
  double share_;
  std::unique_ptr<OrderSearch> inner_;
};

class BoundRaising : public OrderSearch {
 public:
  BoundRaising(std::unique_ptr<OrderSearch> inner, double split_share)
      : inner_(std::move(inner)), split_share_(split_share) {}
  void Improve(const SearchContext& context, SearchState& state,
               const Budget& budget) const override {
    inner_->Improve(context, state, budget);
    if (state.result.order.ops == state.bound_raised_at.ops) return;
    state.bound_raised_at = state.result.order;
    const auto start = Budget::Clock::now();
    Raise(context.graph(), budget, state.result);
    state.result.bound_seconds +=
        std::chrono::duration<double>(Budget::Clock::now() - start).count();
  }

 private:
  void Raise(const Graph& graph, const Budget& budget, ScheduleResult& result) const {
    const Order& order = result.order;
    const int64_t peak = result.peak_bytes;
    if (peak <= result.lower_bound_bytes || budget.Exhausted()) return;
    const MinCutResult cut =
        MinCutBound(graph, LiveBytesByOp(graph, order), result.lower_bound_bytes, peak,
                    budget.Split(0.25));
    if (cut.bound_bytes > result.lower_bound_bytes) {
      result.lower_bound_bytes = cut.bound_bytes;
      result.bound_method = "min-cut";
    }
    result.min_cut_ops += cut.ops_computed;
    if (peak <= result.lower_bound_bytes || budget.Exhausted()) return;
    const CaseSplitResult split = CaseSplitBound(graph, order, result.lower_bound_bytes,
                                                 peak, budget.Split(split_share_));
    if (split.bound_bytes > result.lower_bound_bytes) {
      result.lower_bound_bytes = split.bound_bytes;
      result.bound_method = "case-split";
      result.case_splits = split.splits;
    }
    result.min_cut_ops += split.cuts;
  }

  std::unique_ptr<OrderSearch> inner_;
  double split_share_;
};

class WithoutCostlyUpdatesRule : public OrderSearch {
 public:
  explicit WithoutCostlyUpdatesRule(std::unique_ptr<OrderSearch> inner)
      : inner_(std::move(inner)) {}
  void Improve(const SearchContext& context, SearchState& state,
               const Budget& budget) const override {
    ScheduleResult& result = state.result;
    if (!context.rules().updates_asap || result.peak_bytes <= result.eager_peak_bytes) {
      inner_->Improve(context, state, budget);
      return;
    }
    ScheduleRules free_updates = context.rules();
    free_updates.updates_asap = false;
    const SearchContext without(context.model(), free_updates, context.forced_live(),
                                context.options());
    state.StartFrom(EagerSchedule(context.model(), free_updates));
    result.updates_rule_dropped = true;
    inner_->Improve(without, state, budget);
  }

 private:
  std::unique_ptr<OrderSearch> inner_;
};

}  // namespace

std::unique_ptr<OrderSearch> Sequence(std::vector<std::unique_ptr<OrderSearch>> steps) {
  return std::make_unique<InSequence>(std::move(steps));
}

std::unique_ptr<OrderSearch> WithShare(double share, std::unique_ptr<OrderSearch> inner) {
  return std::make_unique<Shared>(share, std::move(inner));
}

std::unique_ptr<OrderSearch> RaisingTheBound(std::unique_ptr<OrderSearch> inner,
                                             double split_share) {
  return std::make_unique<BoundRaising>(std::move(inner), split_share);
}

std::unique_ptr<OrderSearch> UpdatesRuleFallback(std::unique_ptr<OrderSearch> inner) {
  return std::make_unique<WithoutCostlyUpdatesRule>(std::move(inner));
}

}  // namespace olla
