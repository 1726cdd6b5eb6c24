// olla schedule GRAPH: the operator order with the smallest peak, and its order file.
#include <chrono>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "olla/analysis/topology.h"
#include "olla/cli/commands.h"
#include "olla/cli/exit_codes.h"
#include "olla/cli/progress.h"
#include "olla/cli/table_flags.h"
#include "olla/core/bytes.h"
#include "olla/core/version.h"
#include "olla/graph/pinned.h"
#include "olla/io/graph_json.h"
#include "olla/io/pins_json.h"
#include "olla/io/plan_json.h"
#include "olla/report/summaries.h"
#include "olla/schedule/memory_state.h"
#include "olla/schedule/scheduler.h"
#include "olla/simulation/plan_checker.h"

namespace olla::cli {
namespace {

struct ScheduleCommandOptions {
  std::string graph_path;
  std::string pins_path;
  std::string ilp_horizon = "one-op";
  std::string output_path;
  bool json = false;
  TableFlags table;
};

Plan OrderPlan(const ScheduleResult& result, const OptimizeRequest& request,
               const TableFlags& table) {
  Plan plan;
  plan.order = result.order;
  plan.provenance.olla_version = Version();
  plan.provenance.method = "schedule/" + result.method;
  plan.provenance.options = OptimizeOptionValues(request, TableOptionNames(table));
  plan.provenance.lower_bound_bytes = result.lower_bound_bytes;
  plan.provenance.peak_live_bytes = result.peak_bytes;
  return plan;
}

int RunSchedule(const ScheduleCommandOptions& options) {
  StatusOr<OptimizeRequest> request = RequestOf(options.table);
  if (!request.ok()) return ReportError(request.status());
  ScheduleOptions& schedule = request->options.schedule;
  if (schedule.method == kJointMethod) {
    return ReportError(
        InvalidInput("option --method: joint refines a placed plan: olla optimize "
                     "--schedule-method joint"));
  }
  schedule.threads = request->options.threads;
  schedule.ilp_horizon =
      options.ilp_horizon == "paper" ? IlpHorizon::kPaper : IlpHorizon::kOneOpPerStep;
  const Budget budget = request->MakeBudget();  // Loading is inside the limit too.
  const auto started = std::chrono::steady_clock::now();
  StatusOr<Graph> graph = LoadGraph(options.graph_path);
  if (!graph.ok()) return ReportError(graph.status());
  if (!options.pins_path.empty()) {
    StatusOr<std::vector<std::vector<OpId>>> chains = LoadPins(options.pins_path, *graph);
    if (!chains.ok()) return ReportError(chains.status());
    schedule.pins = std::move(chains).value();
    schedule.pins_source = options.pins_path;
  }
  StatusOr<ScheduleResult> result = [&] {
    Progress progress;  // On stderr when it is a terminal.
    schedule.progress = progress.Callback();
    return Schedule(*graph, schedule, budget);
  }();
  if (!result.ok()) return ReportError(result.status());

  const Plan plan = OrderPlan(*result, *request, options.table);
  const PlanCheck check = CheckPlan(*graph, plan);
  if (!check.valid || check.peak_live_bytes != result->peak_bytes) {
    return ReportError(Internal(fmt::format(
        "schedule/{} produced an order the checker rejects: {}", result->method,
        check.valid ? fmt::format("peak {} B, not {} B", check.peak_live_bytes,
                                  result->peak_bytes)
                    : check.error)));
  }
  if (!options.output_path.empty()) {
    if (Status status = SavePlan(*graph, plan, options.output_path); !status.ok())
      return ReportError(status);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (options.json) {
    std::cout << ScheduleSummaryJson(*graph, *result, seconds).dump(2) << "\n";
  } else {
    std::cout << ScheduleSummaryText(*result, seconds);
  }
  return kExitOk;
}

}  // namespace

void AddScheduleCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ScheduleCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "schedule",
      "Find the operator order with the smallest peak live bytes, with the proven lower "
      "bound. The order file is a plan without offsets (olla check accepts it).");
  command->add_option("graph", options->graph_path, "Graph file (.json or .json.gz)")
      ->required();
  command->add_option("-o,--output", options->output_path, "Write the order as a plan");
  AddTableFlags(*command, options->table,
                {{"time_limit", ""},
                 {"work_limit", ""},
                 {"schedule_method", "--method"},
                 {"updates_asap", ""},
                 {"threads", ""}});
  command
      ->add_option("--ilp-horizon", options->ilp_horizon,
                   "Steps of the lifetime ILP: one op per step (exact), or OLLA's paper "
                   "horizon, about 1.01 x the critical path")
      ->check(CLI::IsMember({"one-op", "paper"}))
      ->capture_default_str();
  command->add_option("--pin", options->pins_path,
                      "Pins file: chains of ops that must run in the given order "
                      "(docs/schedule.md)");
  command->add_flag("--json", options->json, "Print one JSON object instead of text");
  command->callback([options, &exit_code] { exit_code = RunSchedule(*options); });
}

}  // namespace olla::cli
