#include "olla/schedule/order_searches.h"

#include <utility>

#include "olla/schedule/lifetime_ilp.h"
#include "olla/schedule/local_search.h"
#include "olla/schedule/piecewise.h"

namespace olla {
namespace {

class Heuristics : public OrderSearch {
 public:
  void Improve(const SearchContext& context, SearchState& state,
               const Budget& budget) const override {
    if (budget.OutOfTime()) return;
    state.StartFrom(BestHeuristic(context.model(), context.rules(), budget));
  }
};

class Pieces : public OrderSearch {
 public:
  void Improve(const SearchContext& context, SearchState& state,
               const Budget& budget) const override {
    // Cutting a million-op graph into pieces takes a second: not when no time is left.
    if (state.settled() || budget.OutOfTime()) return;
    ScheduleResult& result = state.result;
    const Order incumbent = FollowRules(context.model(), context.timings(), result.order);
    PiecewiseOptions options;
    options.lower_bound = result.lower_bound_bytes;
    options.progress = context.options().progress;
    PiecewiseResult pieces =
        ImprovePieces(context.model(), context.timings(), context.forced_live(),
                      incumbent, options, budget);
    for (const PieceOutcome& piece : pieces.pieces)
      result.pieces.push_back({piece.free_ops, piece.method, piece.optimal});
    if (pieces.proven_bound > result.lower_bound_bytes) {
      result.lower_bound_bytes = pieces.proven_bound;
      result.bound_method = "pieces";
    }
    const int64_t peak = PeakOf(context.model(), pieces.order);
    state.Offer("dp", std::move(pieces.order), peak);
  }
};

class LifetimeIlp : public OrderSearch {
 public:
  void Improve(const SearchContext& context, SearchState& state,
               const Budget& budget) const override {
    ScheduleResult& result = state.result;
    LifetimeIlpOptions ilp;
    ilp.horizon = context.options().ilp_horizon;
    ilp.threads = context.options().threads;
    ilp.lower_bound_bytes = result.lower_bound_bytes;
    ilp.start = result.order;
    context.Progress("lifetime ILP");
    LifetimeIlpResult solved = SolveLifetimeIlp(context.graph(), ilp, budget);
    if (solved.solved) {
      Order order = FollowRules(context.model(), context.timings(), solved.order);
      const int64_t peak = PeakOf(context.model(), order);
      state.Offer("ilp", std::move(order), peak);
      // One op per step is the memory model exactly: its bound holds for every order.
      if (ilp.horizon == IlpHorizon::kOneOpPerStep &&
          solved.model_bound_bytes > result.lower_bound_bytes) {
        result.lower_bound_bytes = solved.model_bound_bytes;
        result.bound_method = "ilp";
      }
    }
    result.ilp = std::move(solved);
  }
};

class Local : public OrderSearch {
 public:
  void Improve(const SearchContext& context, SearchState& state,
               const Budget& budget) const override {
    if (state.settled() || budget.OutOfTime()) return;
    LocalSearchOptions options;
    options.target_peak = state.result.lower_bound_bytes;
    context.Progress("local search");
    LocalSearchResult search = LocalSearch(context.model(), context.timings(),
                                           state.result.order, options, budget);
    state.Offer("local", std::move(search.order), search.peak_bytes);
  }
};

}  // namespace

std::unique_ptr<OrderSearch> HeuristicSearch() { return std::make_unique<Heuristics>(); }
std::unique_ptr<OrderSearch> PieceSearch() { return std::make_unique<Pieces>(); }
std::unique_ptr<OrderSearch> LifetimeIlpSearch() {
  return std::make_unique<LifetimeIlp>();
}
std::unique_ptr<OrderSearch> LocalOrderSearch() { return std::make_unique<Local>(); }

}  // namespace olla
