#include "olla/report/optimize_report.h"

#include <algorithm>

#include <fmt/format.h>

#include "olla/core/bytes.h"
#include "olla/remat/cost.h"

namespace olla {
namespace {

std::string Percent(double fraction) { return fmt::format("{:.1f}%", 100.0 * fraction); }

// "12 ops run twice", or "12 ops run again, 15 runs" where an op runs once for each
// group of its readers.
std::string Runs(const RecomputeReport& re) {
  if (re.runs == re.recomputed_ops)
    return fmt::format("{} ops run twice", re.recomputed_ops);
  return fmt::format("{} ops run again, {} runs", re.recomputed_ops, re.runs);
}

// One figure of the report, in the same words for text and Markdown.
struct Row {
  std::string label;
  std::string value;
};

std::string Verdict(bool optimal, Budget::Limit stopped_by) {
  if (optimal) return "proven optimal";
  if (stopped_by == Budget::Limit::kNone) return "not proven optimal";
  return fmt::format("not proven optimal (stopped by the {} limit)",
                     LimitName(stopped_by));
}

// The floors, as a refutation states them: every plan's, and the searched one where it
// is higher.
std::string FloorsText(const RecomputeFloor& floors) {
  std::string text = fmt::format("{} peak live bytes for every plan, recomputing or not",
                                 FormatBytes(floors.every_plan.bytes));
  if (floors.searched_is_higher()) {
    text += fmt::format(
        "; {} for every plan that never makes the step's outputs again (the searched "
        "floor)",
        FormatBytes(floors.searched.bytes));
  }
  return text;
}

std::vector<Row> Rows(const Graph& original, const OptimizeResult& r) {
  const Graph& graph = r.planned_graph(original);  // What the plan's ids index.
  const int64_t reserved = r.eager.allocator.reserved_peak_bytes;
  std::vector<Row> rows;
  rows.push_back(
      {"graph", fmt::format("{}: {} ops, {} buffers",
                            r.eager.graph_name.empty() ? "(unnamed)" : r.eager.graph_name,
                            r.eager.ops, r.eager.buffers)});
  rows.push_back(
      {"eager PyTorch",
       fmt::format("{} reserved by the caching allocator ({} fragmentation); "
                   "{} peak live",
                   FormatBytes(reserved), Percent(r.eager.allocator.fragmentation()),
                   FormatBytes(r.eager.peak_live_bytes))});
  rows.push_back({"persistent", FormatBytes(r.persistent_bytes())});
  rows.push_back({"lower bound", fmt::format("{} peak live bytes for every order "
                                             "(without recomputation)",
                                             FormatBytes(r.lower_bound_bytes()))});
  if (!r.plan && r.recompute_floor) {
    const RecomputeFloor& floors = *r.recompute_floor;
    const bool every = *r.memory_budget < floors.every_plan.bytes;
    rows.push_back({"recompute floor", FloorsText(floors)});
    rows.push_back(
        {"memory budget",
         fmt::format("{} is below {}: no plan {}fits", FormatBytes(*r.memory_budget),
                     every ? "the recompute floor" : "the searched floor",
                     every ? "" : "budget mode can make ")});
    return rows;
  }
  if (!r.plan) {
    rows.push_back(
        {"memory budget", fmt::format("{} is below the lower bound: no order fits",
                                      FormatBytes(*r.memory_budget))});
    return rows;
  }
  rows.push_back({"olla order",
                  fmt::format("{} peak live ({} below eager), {}; {}",
                              FormatBytes(r.peak_live_bytes),
                              Percent(Saving(r.peak_live_bytes, r.eager.peak_live_bytes)),
                              Verdict(r.optimal_order(), r.schedule.stopped_by),
                              r.schedule.method)});
  if (r.schedule.updates_rule_dropped) {
    rows.push_back(
        {"  updates", "not as soon as ready: that rule raised the eager peak"});
  }
  rows.push_back({"  peak at",
                  fmt::format("step {}, {} ({})", r.peak_step, graph.Describe(r.peak_op),
                              PhaseName(graph.op(r.peak_op).phase))});
  rows.push_back(
      {"reordered only",
       fmt::format("{} reserved by the caching allocator: {} saved",
                   FormatBytes(r.reordered.reserved_peak_bytes),
                   Percent(Saving(r.reordered.reserved_peak_bytes, reserved)))});
  rows.push_back(
      {"olla arena",
       fmt::format(
           "{} at {}-byte alignment, {} above the order's rounded peak {}; {}; {}",
           FormatBytes(r.arena_bytes()), r.alignment,
           Percent(Gap(r.arena_bytes(), r.rounded_peak_bytes)),
           FormatBytes(r.rounded_peak_bytes),
           Verdict(r.optimal_placement(), r.placement.stopped_by), r.placement.method)});
  if (r.unrefined_arena_bytes) {
    const StageReport& refine =
        *std::find_if(r.stages.begin(), r.stages.end(),
                      [](const StageReport& stage) { return stage.name == "refine"; });
    rows.push_back(
        {"  refinement",
         fmt::format("{}: arena {} -> {} ({} smaller){}", refine.method,
                     FormatBytes(*r.unrefined_arena_bytes), FormatBytes(r.arena_bytes()),
                     Percent(Saving(r.arena_bytes(), *r.unrefined_arena_bytes)),
                     r.joint_optimal ? "; the plan is proven optimal over every order "
                                       "and placement"
                                     : "")});
  }
  if (r.memory_budget) {
    std::string floor;
    if (r.recompute_floor) {
      const RecomputeFloor& floors = *r.recompute_floor;
      floor = fmt::format(
          "; no plan below {}, recomputing or not (the recompute floor{}{})",
          FormatBytes(floors.every_plan.bytes),
          floors.every_plan.waiting_bytes > 0 ? ", raised by what a later reader needs"
                                              : "",
          floors.complete ? "" : ", cut short by the limit");
      if (floors.searched_is_higher()) {
        floor += fmt::format(", none budget mode can make below {} (the searched floor)",
                             FormatBytes(floors.searched.bytes));
      }
      if (r.recompute && r.recompute->order_floor_bytes > floors.searched.bytes) {
        floor += fmt::format(", none on the order searched below {} (the order's floor)",
                             FormatBytes(r.recompute->order_floor_bytes));
      }
    }
    rows.push_back(
        {"memory budget",
         fmt::format("{}: {}{}", FormatBytes(*r.memory_budget),
                     r.conclusion == Conclusion::kPlanned ? "fits" : "does not fit",
                     floor)});
  }
  if (r.recompute) {
    const RecomputeReport& re = *r.recompute;
    rows.push_back(
        {"recomputation",
         re.recomputed_ops == 0
             ? fmt::format("none found that helps ({} choices measured)", re.measurements)
             : fmt::format(
                   "{}: {} more compute ({}{}), arena {} -> {}", Runs(re),
                   Percent(re.added_fraction()), CostSource(graph),
                   re.added_cost_bound
                       ? fmt::format("; no plan on this order adds less than {}",
                                     Percent(re.FractionOfStep(*re.added_cost_bound)))
                       : "",
                   FormatBytes(re.arena_without), FormatBytes(r.arena_bytes()))});
  }
  rows.push_back(
      {"olla plan", fmt::format("{} (persistent + arena): {} less than eager reserved",
                                FormatBytes(r.persistent_bytes() + r.arena_bytes()),
                                Percent(r.saving_vs_reserved()))});
  std::string stages;
  for (const StageReport& stage : r.stages) {
    stages += fmt::format("{}{} {:.3f} s", stages.empty() ? "" : ", ", stage.name,
                          stage.seconds);
  }
  rows.push_back({"seconds", fmt::format("{:.3f} s ({})", r.seconds, stages)});
  return rows;
}

}  // namespace

std::string OptimizeReportText(const Graph& graph, const OptimizeResult& result) {
  std::string out;
  for (const Row& row : Rows(graph, result))
    out += fmt::format("{:<18}{}\n", row.label, row.value);
  return out;
}

std::string OptimizeReportMarkdown(const Graph& graph, const OptimizeResult& result) {
  std::string out = fmt::format(
      "# olla plan for {}\n\n| | |\n|---|---|\n",
      result.eager.graph_name.empty() ? "(unnamed)" : result.eager.graph_name);
  for (const Row& row : Rows(graph, result)) {
    std::string label = row.label;
    while (!label.empty() && label.front() == ' ') label.erase(label.begin());
    out += fmt::format("| {} | {} |\n", label, row.value);
  }
  out +=
      "\n## Stages\n\n| stage | method | seconds | proven optimal | stopped by |\n"
      "|---|---|---|---|---|\n";
  for (const StageReport& stage : result.stages) {
    out += fmt::format("| {} | {} | {:.3f} | {} | {} |\n", stage.name, stage.method,
                       stage.seconds, stage.optimal ? "yes" : "no",
                       LimitName(stage.stopped_by));
  }
  return out;
}

nlohmann::ordered_json OptimizeReportJson(const Graph& original,
                                          const OptimizeResult& r) {
  const Graph& graph = r.planned_graph(original);  // What the plan's ids index.
  nlohmann::ordered_json json;
  json["graph"] = r.eager.graph_name;
  json["ops"] = r.eager.ops;
  json["buffers"] = r.eager.buffers;
  json["eager_reserved_bytes"] = r.eager.allocator.reserved_peak_bytes;
  json["eager_fragmentation"] = r.eager.allocator.fragmentation();
  json["eager_peak_live_bytes"] = r.eager.peak_live_bytes;
  json["persistent_bytes"] = r.persistent_bytes();
  json["lower_bound_bytes"] = r.lower_bound_bytes();
  json["has_plan"] = r.plan.has_value();
  if (r.plan) {
    json["reordered_reserved_bytes"] = r.reordered.reserved_peak_bytes;
    json["peak_live_bytes"] = r.peak_live_bytes;
    json["peak_step"] = r.peak_step;
    json["peak_op"] = graph.op(r.peak_op).file_id;
    json["alignment"] = r.alignment;
    json["rounded_peak_bytes"] = r.rounded_peak_bytes;
    json["arena_bytes"] = r.arena_bytes();
    json["fragmentation"] = Gap(r.arena_bytes(), r.rounded_peak_bytes);
    json["total_bytes"] = r.persistent_bytes() + r.arena_bytes();
    json["saving_vs_reserved"] = r.saving_vs_reserved();
    json["reordering_saving_vs_reserved"] =
        Saving(r.reordered.reserved_peak_bytes, r.eager.allocator.reserved_peak_bytes);
    json["schedule_method"] = r.schedule.method;
    json["updates_rule_dropped"] = r.schedule.updates_rule_dropped;
    json["bound_method"] = r.schedule.bound_method;
    json["bound_seconds"] = r.schedule.bound_seconds;
    json["placement_method"] = r.placement.method;
    json["plan_method"] = r.plan->provenance.method;
  }
  json["optimal_order"] = r.optimal_order();
  json["optimal_placement"] = r.optimal_placement();
  json["optimal_plan"] = r.joint_optimal;
  if (r.unrefined_arena_bytes) json["unrefined_arena_bytes"] = *r.unrefined_arena_bytes;
  if (r.memory_budget) {
    json["memory_budget"] = *r.memory_budget;
    json["fits"] = r.conclusion == Conclusion::kPlanned;
    json["conclusion"] = ConclusionName(r.conclusion);
    if (!r.reason.empty()) json["reason"] = r.reason;
  }
  if (r.recompute_floor) {
    json["recompute_floor_bytes"] = r.recompute_floor->every_plan.bytes;
    json["searched_floor_bytes"] = r.recompute_floor->searched.bytes;
    json["recompute_floor_complete"] = r.recompute_floor->complete;
  }
  if (r.recompute) {
    json["recomputed_ops"] = r.recompute->recomputed_ops;
    json["recompute_runs"] = r.recompute->runs;
    json["added_compute"] = r.recompute->added_fraction();
    if (r.recompute->added_cost_bound) {
      json["added_compute_lower_bound"] =
          r.recompute->FractionOfStep(*r.recompute->added_cost_bound);
      json["added_compute_bound_optimal"] = r.recompute->bound_optimal;
    }
    json["order_floor_bytes"] = r.recompute->order_floor_bytes;
    json["order_reaches_budget"] = r.recompute->order_floor_bytes <= *r.memory_budget;
    json["cost_source"] = CostSource(graph);
    json["added_cost"] = r.recompute->added_cost;
    json["step_cost"] = r.recompute->step_cost;
    json["arena_without_recompute_bytes"] = r.recompute->arena_without;
  }
  json["seconds"] = r.seconds;
  nlohmann::ordered_json stages = nlohmann::ordered_json::array();
  for (const StageReport& stage : r.stages) {
    stages.push_back({{"name", stage.name},
                      {"method", stage.method},
                      {"seconds", stage.seconds},
                      {"optimal", stage.optimal},
                      {"stopped_by", LimitName(stage.stopped_by)}});
  }
  json["stages"] = stages;
  nlohmann::ordered_json options = nlohmann::ordered_json::object();
  for (const auto& [name, value] : r.options) options[name] = value;
  json["options"] = options;
  return json;
}

}  // namespace olla
