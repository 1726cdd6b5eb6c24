// olla schedule GRAPH: the operator order with the smallest peak, and its order file.
#include <chrono>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "olla/analysis/topology.h"
#include "olla/cli/commands.h"
#include "olla/cli/exit_codes.h"
#include "olla/cli/numbers.h"
#include "olla/cli/progress.h"
#include "olla/core/bytes.h"
#include "olla/core/names.h"
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
  ScheduleOptions schedule;
  double time_limit_seconds = 8.0;
  std::optional<int64_t> work_limit;
  bool json = false;
};

Plan OrderPlan(const ScheduleResult& result, const ScheduleCommandOptions& command) {
  const ScheduleOptions& options = command.schedule;
  Plan plan;
  plan.order = result.order;
  plan.provenance.olla_version = Version();
  plan.provenance.method = "schedule/" + result.method;
  plan.provenance.options = {
      {"method", options.method},
      {"updates_asap", options.rules.updates_asap ? "true" : "false"},
      {"time_limit_seconds", fmt::format("{}", command.time_limit_seconds)}};
  plan.provenance.lower_bound_bytes = result.lower_bound_bytes;
  plan.provenance.peak_live_bytes = result.peak_bytes;
  return plan;
}

int RunSchedule(ScheduleCommandOptions options) {
  const Budget budget = Budget::Of(options.time_limit_seconds,
                                   options.work_limit.value_or(Budget::kUnlimitedWork));
  const auto started = std::chrono::steady_clock::now();
  StatusOr<Graph> graph = LoadGraph(options.graph_path);
  if (!graph.ok()) return ReportError(graph.status());
  options.schedule.ilp_horizon =
      options.ilp_horizon == "paper" ? IlpHorizon::kPaper : IlpHorizon::kOneOpPerStep;
  if (!options.pins_path.empty()) {
    StatusOr<std::vector<std::vector<OpId>>> chains = LoadPins(options.pins_path, *graph);
    if (!chains.ok()) return ReportError(chains.status());
    options.schedule.pins = std::move(chains).value();
    options.schedule.pins_source = options.pins_path;
  }
  StatusOr<ScheduleResult> result = [&] {
    Progress progress;  // On stderr when it is a terminal.
    options.schedule.progress = progress.Callback();
    return Schedule(*graph, options.schedule, budget);
  }();
  if (!result.ok()) return ReportError(result.status());

  const Plan plan = OrderPlan(*result, options);
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
  command->add_option("--method", options->schedule.method, "Scheduling method")
      ->check(CLI::IsMember(NameList(kScheduleMethods)))
      ->capture_default_str();
  command
      ->add_option("--time-limit", options->time_limit_seconds,
                   "Wall-clock seconds for the whole schedule")
      ->check(Seconds())
      ->capture_default_str();
  command
      ->add_option("--work-limit", options->work_limit,
                   "Deterministic work units (search nodes, moves, ILP nodes): the same "
                   "limit gives the same result on any machine")
      ->check(IntegerIn(0, INT64_MAX));
  command
      ->add_option("--ilp-horizon", options->ilp_horizon,
                   "Steps of the lifetime ILP: one op per step (exact), or OLLA's paper "
                   "horizon, about 1.01 x the critical path")
      ->check(CLI::IsMember({"one-op", "paper"}))
      ->capture_default_str();
  command->add_option("--pin", options->pins_path,
                      "Pins file: chains of ops that must run in the given order "
                      "(docs/schedule.md)");
  command->add_flag("!--no-updates-asap", options->schedule.rules.updates_asap,
                    "Let optimizer updates run at any time, not as soon as their "
                    "gradient is ready");
  command->add_flag("--json", options->json, "Print one JSON object instead of text");
  command->callback([options, &exit_code] { exit_code = RunSchedule(*options); });
}

}  // namespace olla::cli
