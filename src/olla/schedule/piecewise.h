// Piece-by-piece improvement of an order: decompose at cut ops (decomposition.h) and
// run the exact search (exact_search.h) on every piece, in execution order, each from
// the state the pieces before it leave.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "olla/core/budget.h"
#include "olla/graph/order.h"
#include "olla/schedule/executor.h"
#include "olla/schedule/memory_state.h"

namespace olla {

struct PieceOutcome {
  int32_t free_ops = 0;
  std::string method;    // "cut", "at bound", "exact".
  bool optimal = false;  // Its peak cannot be lowered (or need not be: at the bound).
  int64_t peak_bytes = 0;
};

struct PiecewiseResult {
  Order order;
  std::vector<PieceOutcome> pieces;
  // A lower bound on every order's peak under the rules: the largest peak among the
  // pieces whose optimum was proven (a cut's is its only order's).
  int64_t proven_bound = 0;
};

struct PiecewiseOptions {
  // The proven lower bound on the whole graph: a piece that peaks at or below it is
  // left alone.
  int64_t lower_bound = 0;
  // When false, every piece is searched to the end (tests: the pieces' optima).
  bool stop_at_bound = true;
  std::function<void(const std::string&)> progress;
};

// `incumbent` must follow the rules of `timings` (FollowRules); `forced_live` is
// analysis/lower_bounds.h's ForcedLiveBytes of the graph. The result is never worse
// than the incumbent, piece by piece. Each piece searched gets an even share of what
// is left of `budget` (at least an eighth).
PiecewiseResult ImprovePieces(const MemoryModel& model, const Timings& timings,
                              const std::vector<int64_t>& forced_live,
                              const Order& incumbent, const PiecewiseOptions& options,
                              const Budget& budget);

}  // namespace olla
