// Schedule(): the operator order with the smallest peak live bytes that the chosen
// method finds, with the proven lower bound and the gap.
//
// Methods: "eager" (the framework's order), "greedy" (the best heuristic), "dp" (exact
// dynamic programming per piece), "local" (local search from the best heuristic),
// "ilp" (the OLLA lifetime ILP on CBC, started from the best heuristic), "auto"
// (heuristics, then the exact search piece by piece, then local search, within the
// budget: 60 % to the exact search, the rest to local search). Each method is a
// composition of the searches behind one interface (order_search.h). Every order
// returned follows the rules (executor.h) and the pins.
//
// Pins are chains of ops that must run in the given order (graph/pinned.h): the methods
// run on the pinned graph and the order comes back in the input graph's ops.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "olla/core/budget.h"
#include "olla/core/status.h"
#include "olla/graph/graph.h"
#include "olla/graph/order.h"
#include "olla/schedule/executor.h"
#include "olla/schedule/lifetime_ilp.h"

namespace olla {

inline constexpr const char* kScheduleMethods[] = {"auto", "eager", "greedy",
                                                   "dp",   "local", "ilp"};

bool IsScheduleMethod(const std::string& method);

struct ScheduleOptions {
  std::string method = "auto";
  ScheduleRules rules;
  IlpHorizon ilp_horizon = IlpHorizon::kOneOpPerStep;  // For method "ilp".
  std::vector<std::vector<OpId>> pins;  // Chains of ops of the input graph.
  std::string pins_source;  // Where the pins came from (a file), for their errors.
  // ForcedLiveBytes(graph) when the caller has computed it already (the pipeline's
  // baselines have); empty: Schedule computes it. Ignored with pins, which change the
  // graph.
  std::vector<int64_t> forced_live;
  int threads = 2;
  // Called now and then with a one-line status during long solves (may be empty).
  std::function<void(const std::string&)> progress;
};

// One independent piece of the graph (decomposition.h) and how it was solved.
struct PieceReport {
  int32_t ops = 0;
  std::string method;
  bool optimal = false;
};

struct ScheduleResult {
  Order order;
  // Method "ilp": the model's size and verdict (its objective is in the model's units
  // of memory, which over-count under the paper's horizon).
  std::optional<LifetimeIlpResult> ilp;
  int64_t peak_bytes = 0;
  int64_t eager_peak_bytes = 0;  // The eager order, as `olla simulate` reports it.
  int64_t best_heuristic_peak_bytes = 0;
  std::string best_heuristic;
  int64_t lower_bound_bytes = 0;  // No order under the rules peaks lower.
  // What proved lower_bound_bytes: "forced-live", "pieces" (the exact search per
  // piece), "ilp", "min-cut" (analysis/min_cut_bound.h) or "case-split"
  // (analysis/case_split_bound.h); min_cut_ops: the cuts computed, case splits'
  // included; case_splits: the splits on the dive that proved the bound.
  std::string bound_method = "forced-live";
  int32_t min_cut_ops = 0;
  int32_t case_splits = 0;
  double bound_seconds = 0;  // Wall clock in cuts and case splits (reports only).
  bool optimal = false;      // Proven: no order under the rules peaks lower.
  // The updates rule made the eager order peak higher, so the search ran without it
  // (scheduler.cc): the order need not run updates as soon as ready.
  bool updates_rule_dropped = false;
  std::string method;  // What produced `order`.
  std::vector<PieceReport> pieces;
  // The limit that stopped a search before it proved the order optimal (kNone when
  // every stage finished).
  Budget::Limit stopped_by = Budget::Limit::kNone;
};

// An error for an unknown method or pins that contradict the graph (naming a cycle).
StatusOr<ScheduleResult> Schedule(const Graph& graph, const ScheduleOptions& options,
                                  const Budget& budget);

}  // namespace olla
