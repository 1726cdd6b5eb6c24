#include "olla/report/summaries.h"

#include <fmt/format.h>

#include "olla/core/bytes.h"
#include "olla/remat/cost.h"

namespace olla {

std::string EagerReportText(const Graph& graph, const EagerReport& r) {
  const AllocatorReplay& a = r.allocator;
  const LowerBounds& b = r.bounds;
  std::string out;
  out += fmt::format("graph             {}\n",
                     r.graph_name.empty() ? "(unnamed)" : r.graph_name);
  out += fmt::format("ops               {} ({} precedence edges, critical path {} ops)\n",
                     r.ops, r.edges, r.critical_path_length);
  out += fmt::format("buffers           {} ({} persistent, {})\n", r.buffers,
                     r.persistent_buffers, FormatBytes(r.persistent_bytes));
  out +=
      fmt::format("eager peak        {} at step {}, {}\n", FormatBytes(r.peak_live_bytes),
                  r.peak_step, graph.Describe(r.peak_op));
  out += fmt::format(
      "caching allocator {} reserved in {} segment{} (persistent included)\n",
      FormatBytes(a.reserved_peak_bytes), a.segments, a.segments == 1 ? "" : "s");
  out += fmt::format("                  {} allocated at most: {} fragmentation\n",
                     FormatBytes(a.peak_allocated_bytes),
                     FormatPercent(a.fragmentation(), 1.0));
  out += fmt::format("lower bound       {}\n", FormatBytes(b.best()));
  out += fmt::format("  forced live     {} at {}\n", FormatBytes(b.forced_live_bytes),
                     graph.Describe(b.forced_live_op));
  if (!b.forced_live_complete()) {
    out += fmt::format(
        "                  (time limit: computed at {} of {} ops, from the highest eager "
        "live bytes down; single-op footprints at the rest)\n",
        b.forced_live_ops_computed, b.forced_live.size());
  }
  out += fmt::format("  single op       {} at {}\n", FormatBytes(b.single_op_bytes),
                     graph.Describe(b.single_op));
  out += fmt::format("eager vs bound    eager peak is {} above the lower bound\n",
                     FormatPercent(static_cast<double>(r.peak_live_bytes - b.best()),
                                   static_cast<double>(b.best())));
  return out;
}

nlohmann::ordered_json EagerReportJson(const Graph& graph, const EagerReport& r) {
  nlohmann::ordered_json json;
  json["graph"] = r.graph_name;
  json["ops"] = r.ops;
  json["buffers"] = r.buffers;
  json["edges"] = r.edges;
  json["critical_path_length"] = r.critical_path_length;
  json["persistent_buffers"] = r.persistent_buffers;
  json["persistent_bytes"] = r.persistent_bytes;
  json["eager_peak_live_bytes"] = r.peak_live_bytes;
  json["eager_peak_step"] = r.peak_step;
  json["eager_peak_op"] = graph.op(r.peak_op).file_id;
  json["eager_reserved_bytes"] = r.allocator.reserved_peak_bytes;
  json["eager_allocated_at_reserved_peak_bytes"] = r.allocator.allocated_at_peak_bytes;
  json["eager_peak_allocated_bytes"] = r.allocator.peak_allocated_bytes;
  json["eager_fragmentation"] = r.allocator.fragmentation();
  json["eager_segments"] = r.allocator.segments;
  json["single_op_bound_bytes"] = r.bounds.single_op_bytes;
  json["single_op_bound_op"] = graph.op(r.bounds.single_op).file_id;
  json["forced_live_bound_bytes"] = r.bounds.forced_live_bytes;
  json["forced_live_bound_op"] = graph.op(r.bounds.forced_live_op).file_id;
  json["forced_live_ops_computed"] = r.bounds.forced_live_ops_computed;
  json["lower_bound_bytes"] = r.bounds.best();
  return json;
}

namespace {

// The compute a plan's recomputations add, as a fraction of the step's.
double AddedCompute(const Graph& graph, const Plan& plan) {
  int64_t added = 0;
  for (const Recomputation& r : plan.recompute) added += OpCost(graph, r.op);
  const int64_t step = StepCost(graph);
  return step > 0 ? static_cast<double>(added) / static_cast<double>(step) : 0.0;
}

}  // namespace

std::string PlanCheckText(const Graph& graph, const Plan& plan, const PlanCheck& check) {
  if (!check.valid) return "invalid plan: " + check.error + "\n";
  std::string out =
      plan.recomputes()
          ? fmt::format(
                "valid plan        order of {} ops and {} recomputation{} honours every "
                "dependency\n",
                graph.num_ops(), plan.recompute.size(),
                plan.recompute.size() == 1 ? "" : "s")
          : fmt::format("valid plan        order of {} ops honours every dependency\n",
                        graph.num_ops());
  out += fmt::format("peak live         {}\n", FormatBytes(check.peak_live_bytes));
  if (plan.recomputes()) {
    out += fmt::format("recomputation     {:.1f}% more compute ({})\n",
                       100.0 * AddedCompute(graph, plan), CostSource(graph));
  }
  if (plan.has_placement()) {
    out += fmt::format("arena             {} used of {} declared, alignment {}\n",
                       FormatBytes(check.arena_bytes), FormatBytes(plan.arena_bytes),
                       plan.alignment);
    out += fmt::format(
        "fragmentation     {} above peak live bytes\n",
        FormatPercent(static_cast<double>(check.arena_bytes - check.peak_live_bytes),
                      static_cast<double>(check.peak_live_bytes)));
  } else {
    out += "arena             none: the plan is an order only\n";
  }
  return out;
}

nlohmann::ordered_json PlanCheckJson(const Graph& graph, const Plan& plan,
                                     const PlanCheck& check) {
  nlohmann::ordered_json json;
  json["valid"] = check.valid;
  json["peak_live_bytes"] = check.peak_live_bytes;
  json["placed"] = plan.has_placement();
  json["recomputations"] = plan.recompute.size();
  if (check.valid && plan.recomputes()) {
    json["added_compute"] = AddedCompute(graph, plan);
    json["cost_source"] = CostSource(graph);
  }
  json["arena_bytes"] = check.arena_bytes;
  json["declared_arena_bytes"] = plan.arena_bytes;
  json["alignment"] = plan.alignment;
  if (!check.valid) json["error"] = check.error;
  return json;
}

std::string PlacementSummaryText(const PlacementProblem& problem,
                                 const Placement& placement, double seconds) {
  return fmt::format("arena {}, lower bound {}, gap {}, {}, {} buffers, {}, {:.3f} s\n",
                     FormatBytes(placement.arena_bytes),
                     FormatBytes(placement.lower_bound_bytes),
                     FormatPercent(placement.gap(), 1.0),
                     placement.optimal() ? "optimal" : "not proven optimal",
                     problem.size(), placement.method, seconds);
}

nlohmann::ordered_json PlacementSummaryJson(const PlacementProblem& problem,
                                            const Placement& placement, double seconds) {
  nlohmann::ordered_json json;
  json["buffers"] = problem.size();
  json["arena_bytes"] = placement.arena_bytes;
  json["lower_bound_bytes"] = placement.lower_bound_bytes;
  json["gap"] = placement.gap();
  json["optimal"] = placement.optimal();
  json["method"] = placement.method;
  json["seconds"] = seconds;
  return json;
}

namespace {}  // namespace

std::string ScheduleSummaryText(const ScheduleResult& result, double seconds) {
  std::string text = fmt::format(
      "peak {} B ({}), {:.1f}% below eager {} B; lower bound {} B, gap {:.1f}%, {}; {}, "
      "{:.3f} s\n",
      result.peak_bytes, FormatBinaryUnits(result.peak_bytes),
      100.0 * Saving(result.peak_bytes, result.eager_peak_bytes), result.eager_peak_bytes,
      result.lower_bound_bytes, 100.0 * Gap(result.peak_bytes, result.lower_bound_bytes),
      result.optimal ? "optimal" : "not proven optimal", result.method, seconds);
  if (!result.pieces.empty()) {
    int32_t exact = 0;
    int32_t largest = 0;
    for (const PieceReport& piece : result.pieces) {
      exact += piece.optimal ? 1 : 0;
      largest = std::max(largest, piece.ops);
    }
    text += fmt::format("pieces {} (largest {} ops), {} solved exactly\n",
                        result.pieces.size(), largest, exact);
  }
  if (result.bound_method != "forced-live" || result.min_cut_ops > 0) {
    std::string detail;
    if (result.case_splits > 0) detail += fmt::format("{} splits, ", result.case_splits);
    if (result.min_cut_ops > 0)
      detail +=
          fmt::format("{} cuts, {:.3f} s", result.min_cut_ops, result.bound_seconds);
    text += fmt::format("bound by {}{}\n", result.bound_method,
                        detail.empty() ? "" : " (" + detail + ")");
  }
  if (result.ilp && !result.ilp->solver_failure.empty()) {
    text += "ILP solve lost (" + result.ilp->solver_failure + "); its start stands\n";
  }
  return text;
}

nlohmann::ordered_json ScheduleSummaryJson(const Graph& graph,
                                           const ScheduleResult& result, double seconds) {
  nlohmann::ordered_json json;
  json["graph"] = graph.name();
  json["ops"] = graph.num_ops();
  json["method"] = result.method;
  json["peak_live_bytes"] = result.peak_bytes;
  json["eager_peak_live_bytes"] = result.eager_peak_bytes;
  json["best_heuristic"] = result.best_heuristic;
  json["best_heuristic_peak_live_bytes"] = result.best_heuristic_peak_bytes;
  json["lower_bound_bytes"] = result.lower_bound_bytes;
  json["bound_method"] = result.bound_method;
  json["min_cut_ops"] = result.min_cut_ops;
  json["case_splits"] = result.case_splits;
  json["bound_seconds"] = result.bound_seconds;
  json["gap"] = Gap(result.peak_bytes, result.lower_bound_bytes);
  json["optimal"] = result.optimal;
  json["below_eager"] = Saving(result.peak_bytes, result.eager_peak_bytes);
  nlohmann::ordered_json pieces = nlohmann::ordered_json::array();
  for (const PieceReport& piece : result.pieces) {
    pieces.push_back(
        {{"ops", piece.ops}, {"method", piece.method}, {"optimal", piece.optimal}});
  }
  json["pieces"] = pieces;
  if (result.ilp) {
    json["ilp"] = {{"steps", result.ilp->steps},
                   {"variables", result.ilp->variables},
                   {"constraints", result.ilp->constraints},
                   {"too_large", result.ilp->too_large},
                   {"solved", result.ilp->solved},
                   {"optimal", result.ilp->optimal},
                   {"model_peak_bytes", result.ilp->model_peak_bytes},
                   {"model_bound_bytes", result.ilp->model_bound_bytes}};
    if (!result.ilp->solver_failure.empty()) {
      json["ilp"]["solver_failure"] = result.ilp->solver_failure;
    }
  }
  json["seconds"] = seconds;
  return json;
}

}  // namespace olla
