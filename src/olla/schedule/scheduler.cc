#include "olla/schedule/scheduler.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "olla/analysis/lower_bounds.h"
#include "olla/schedule/decomposition.h"
#include "olla/schedule/exact_search.h"
#include "olla/schedule/heuristics.h"
#include "olla/schedule/memory_state.h"

namespace olla {
namespace {

using Clock = std::chrono::steady_clock;

// The free ops of `piece` in the order `order` runs them.
std::vector<OpId> InOrder(const Order& order, const std::vector<bool>& in_piece) {
  std::vector<OpId> ops;
  for (OpId op : order.ops) {
    if (in_piece[op.index()]) ops.push_back(op);
  }
  return ops;
}

// Runs `free_ops` on `executor`; returns the most bytes live meanwhile.
int64_t RunAll(Executor& executor, const std::vector<OpId>& free_ops) {
  int64_t most = 0;
  for (OpId op : free_ops) most = std::max(most, executor.Run(op));
  return most;
}

struct PiecewiseResult {
  Order order;
  std::vector<PieceReport> pieces;
  int64_t proven_bound = 0;  // The largest piece optimum proven.
};

// Improves `incumbent` piece by piece (decomposition.h) with the exact search, each
// piece given its share of the time left. A piece whose incumbent already peaks at or
// below `target` (a lower bound on the whole graph) is left alone: nothing it could
// gain would lower the peak.
PiecewiseResult ImprovePieces(const MemoryModel& model, const std::vector<bool>& asap,
                              const Order& incumbent, int64_t target,
                              Clock::time_point deadline,
                              const ScheduleOptions& options) {
  const Graph& graph = model.graph();
  const std::vector<Piece> pieces = Decompose(graph, asap);
  const std::vector<int64_t> forced_live = ForcedLiveBytes(graph);
  PiecewiseResult result;
  Executor executor(model, asap);
  size_t searched = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Piece& piece = pieces[i];
    std::vector<bool> in_piece(static_cast<size_t>(graph.num_ops()), false);
    for (OpId op : piece.free_ops) in_piece[op.index()] = true;
    std::vector<OpId> chosen = InOrder(incumbent, in_piece);
    Executor trial = executor;
    const int64_t incumbent_peak = RunAll(trial, chosen);
    PieceReport report{static_cast<int32_t>(piece.free_ops.size()), "incumbent", false};
    if (piece.is_cut || piece.free_ops.size() == 1) {
      report = {1, "cut", true};  // One op: one order.
      result.proven_bound = std::max(result.proven_bound, incumbent_peak);
    } else if (incumbent_peak <= target) {
      report.method = "at bound";
      report.optimal = true;
    } else {
      const auto now = Clock::now();
      const auto left = deadline - now;
      const auto pieces_left = static_cast<int64_t>(pieces.size() - i);
      ExactSearchLimits limits;
      limits.deadline = now + std::max<Clock::duration>(left / pieces_left, left / 8);
      limits.deadline = std::min(limits.deadline, deadline);
      const ExactSearchResult search =
          SearchPiece(model, asap, forced_live, executor, piece.free_ops, incumbent_peak,
                      target, limits);
      ++searched;
      if (search.improved) {
        chosen.clear();
        for (OpId op : search.ops) {
          if (in_piece[op.index()]) chosen.push_back(op);
        }
      }
      report.method = "exact";
      report.optimal = search.complete || search.peak_bytes <= target;
      if (search.complete)
        result.proven_bound = std::max(result.proven_bound, search.peak_bytes);
      if (options.progress) {
        options.progress(fmt::format("piece {}/{}: {} ops, {} states{}", i + 1,
                                     pieces.size(), piece.free_ops.size(), search.states,
                                     search.complete ? ", optimal" : ""));
      }
    }
    const int64_t piece_peak = RunAll(executor, chosen);
    target = std::max(target, piece_peak);
    result.pieces.push_back(report);
  }
  (void)searched;
  result.order = executor.TakeOrder();
  return result;
}

}  // namespace

StatusOr<ScheduleResult> Schedule(const Graph& graph, const ScheduleOptions& options) {
  const auto started = Clock::now();
  const auto deadline =
      started + std::chrono::duration_cast<Clock::duration>(
                    std::chrono::duration<double>(options.time_limit_seconds));
  const MemoryModel model(graph);
  ScheduleResult result;
  result.eager_peak_bytes = PeakOf(model, EagerOrder(graph));
  result.lower_bound_bytes = ComputeLowerBounds(graph).best();

  const std::string& method = options.method;
  ScoredOrder chosen = method == "eager" ? EagerSchedule(model, options.rules)
                                         : BestHeuristic(model, options.rules);
  result.best_heuristic = chosen.method;
  result.best_heuristic_peak_bytes = chosen.peak_bytes;
  if (method == "dp" || method == "auto") {
    if (chosen.peak_bytes > result.lower_bound_bytes) {
      const std::vector<bool> asap = AsapOps(model, options.rules);
      const Order incumbent = RunAsapEarly(model, asap, chosen.order);
      PiecewiseResult pieces = ImprovePieces(model, asap, incumbent,
                                             result.lower_bound_bytes, deadline, options);
      const int64_t peak = PeakOf(model, pieces.order);
      result.pieces = std::move(pieces.pieces);
      result.lower_bound_bytes = std::max(result.lower_bound_bytes, pieces.proven_bound);
      if (peak < chosen.peak_bytes) chosen = {"dp", std::move(pieces.order), peak};
    }
  } else if (method != "eager" && method != "greedy") {
    return InvalidInput("unknown schedule method '" + method + "'");
  }
  result.order = std::move(chosen.order);
  result.peak_bytes = chosen.peak_bytes;
  result.method = chosen.method;
  result.optimal = result.peak_bytes <= result.lower_bound_bytes;
  return result;
}

}  // namespace olla
