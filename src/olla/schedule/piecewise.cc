#include "olla/schedule/piecewise.h"

#include <algorithm>

#include <fmt/format.h>

#include "olla/schedule/decomposition.h"
#include "olla/schedule/exact_search.h"

namespace olla {
namespace {

// Runs `free_ops` on `executor`; returns the most bytes live meanwhile.
int64_t RunAll(Executor& executor, const std::vector<OpId>& free_ops) {
  int64_t most = 0;
  for (OpId op : free_ops) most = std::max(most, executor.Run(op));
  return most;
}

}  // namespace

PiecewiseResult ImprovePieces(const MemoryModel& model, const Timings& timings,
                              const std::vector<int64_t>& forced_live,
                              const Order& incumbent, const PiecewiseOptions& options,
                              const Budget& budget) {
  const Graph& graph = model.graph();
  const std::vector<Piece> pieces = Decompose(graph, timings);
  std::vector<int32_t> piece_of(static_cast<size_t>(graph.num_ops()), -1);
  for (size_t i = 0; i < pieces.size(); ++i) {
    for (OpId op : pieces[i].free_ops) piece_of[op.index()] = static_cast<int32_t>(i);
  }
  // The incumbent's order within each piece.
  std::vector<std::vector<OpId>> chosen(pieces.size());
  for (OpId op : incumbent.ops) {
    if (piece_of[op.index()] >= 0)
      chosen[static_cast<size_t>(piece_of[op.index()])].push_back(op);
  }

  PiecewiseResult result;
  Executor executor(model, timings);
  // The ASAP ops ready from the start run first in every order the rules allow.
  result.proven_bound =
      executor.memory().steps() > 0 ? executor.memory().peak_bytes() : 0;
  // Lowering a piece below the peak an earlier piece keeps cannot lower the whole peak.
  int64_t floor = std::max(options.lower_bound, result.proven_bound);
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Piece& piece = pieces[i];
    Executor trial = executor;
    const int64_t incumbent_peak = RunAll(trial, chosen[i]);
    PieceOutcome outcome{static_cast<int32_t>(piece.free_ops.size()), "exact", false,
                         incumbent_peak};
    const int64_t good_enough = options.stop_at_bound ? floor : -1;
    if (piece.free_ops.size() == 1) {
      outcome.method = "cut";
      outcome.optimal = true;
      result.proven_bound = std::max(result.proven_bound, incumbent_peak);
    } else if (incumbent_peak <= good_enough) {
      outcome.method = "at bound";
    } else {
      const auto pieces_left = static_cast<double>(pieces.size() - i);
      const ExactSearchResult search = SearchPiece(
          model, forced_live, executor, piece.free_ops, incumbent_peak, good_enough,
          ExactSearchLimits(), budget.Split(std::max(1.0 / pieces_left, 0.125)));
      if (search.improved) {
        chosen[i].clear();
        chosen[i] = search.ops;
      }
      outcome.peak_bytes = search.peak_bytes;
      if (search.complete) {
        outcome.optimal = true;
        result.proven_bound = std::max(result.proven_bound, search.peak_bytes);
      }
      if (options.progress) {
        options.progress(fmt::format("piece {}/{}: {} ops, {} states{}", i + 1,
                                     pieces.size(), piece.free_ops.size(), search.states,
                                     search.complete ? ", optimal" : ""));
      }
    }
    const int64_t piece_peak = RunAll(executor, chosen[i]);
    floor = std::max(floor, piece_peak);
    result.pieces.push_back(outcome);
  }
  // Pieces at or below the final bound cannot be improved in any way that matters.
  const int64_t bound = std::max(options.lower_bound, result.proven_bound);
  for (PieceOutcome& outcome : result.pieces) {
    if (outcome.peak_bytes <= bound) outcome.optimal = true;
  }
  result.order = executor.TakeOrder();
  return result;
}

}  // namespace olla
