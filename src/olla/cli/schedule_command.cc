// olla schedule GRAPH: the operator order with the smallest peak, and its order file.
#include <chrono>
#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <unistd.h>

#include "olla/analysis/topology.h"
#include "olla/cli/commands.h"
#include "olla/cli/exit_codes.h"
#include "olla/core/bytes.h"
#include "olla/core/version.h"
#include "olla/graph/pinned.h"
#include "olla/io/graph_json.h"
#include "olla/io/pins_json.h"
#include "olla/io/plan_json.h"
#include "olla/io/report.h"
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
  bool json = false;
};

Plan OrderPlan(const ScheduleResult& result, const ScheduleOptions& options) {
  Plan plan;
  plan.order = result.order;
  plan.provenance.olla_version = Version();
  plan.provenance.method = "schedule/" + result.method;
  plan.provenance.options = {
      {"method", options.method},
      {"updates_asap", options.rules.updates_asap ? "true" : "false"},
      {"time_limit_seconds", fmt::format("{}", options.time_limit_seconds)}};
  plan.provenance.lower_bound_bytes = result.lower_bound_bytes;
  plan.provenance.peak_live_bytes = result.peak_bytes;
  return plan;
}

int RunSchedule(ScheduleCommandOptions options) {
  const auto started = std::chrono::steady_clock::now();
  StatusOr<Graph> graph = LoadGraph(options.graph_path);
  if (!graph.ok()) return ReportError(graph.status());
  // Progress on a terminal, once a solve has taken more than a second.
  bool showed_progress = false;
  if (isatty(STDERR_FILENO)) {
    options.schedule.progress = [started, &showed_progress](const std::string& line) {
      if (std::chrono::steady_clock::now() - started < std::chrono::seconds(1)) return;
      std::cerr << "\r\033[K" << line << std::flush;
      showed_progress = true;
    };
  }
  options.schedule.ilp_horizon =
      options.ilp_horizon == "paper" ? IlpHorizon::kPaper : IlpHorizon::kOneOpPerStep;
  // Pins become precedence edges of a renumbered graph; the order maps back by op.
  std::optional<PinnedGraph> pinned;
  if (!options.pins_path.empty()) {
    StatusOr<std::vector<std::vector<OpId>>> chains = LoadPins(options.pins_path, *graph);
    if (!chains.ok()) return ReportError(chains.status());
    StatusOr<PinnedGraph> pinning = PinChains(*graph, *chains);
    if (!pinning.ok())
      return ReportError(pinning.status().WithContext(options.pins_path));
    pinned.emplace(std::move(pinning).value());
  }
  StatusOr<ScheduleResult> result =
      Schedule(pinned ? pinned->graph : *graph, options.schedule);
  if (showed_progress) std::cerr << "\r\033[K" << std::flush;
  if (!result.ok()) return ReportError(result.status());
  if (pinned) {
    // The pins are edges of the pinned graph: an order valid for it honours them.
    if (!CheckValidOrder(pinned->graph, result->order).ok()) {
      return ReportError(
          Internal("schedule/" + result->method + " broke a pinned order"));
    }
    for (OpId& op : result->order.ops) op = pinned->original[op.index()];
    result->eager_peak_bytes = PeakOf(MemoryModel(*graph), EagerOrder(*graph));
  }

  const Plan plan = OrderPlan(*result, options.schedule);
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
  std::vector<std::string> methods(std::begin(kScheduleMethods),
                                   std::end(kScheduleMethods));
  command->add_option("--method", options->schedule.method, "Scheduling method")
      ->check(CLI::IsMember(methods))
      ->capture_default_str();
  command
      ->add_option("--time-limit", options->schedule.time_limit_seconds,
                   "Wall-clock seconds for the whole schedule")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
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
