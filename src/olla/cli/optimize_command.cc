// olla optimize GRAPH -o PLAN.json: the whole job in one command. Flags become
// OptimizeOptions and a Budget; Optimize() decides; this file prints and writes.
#include <chrono>
#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <unistd.h>

#include "olla/cli/commands.h"
#include "olla/cli/exit_codes.h"
#include "olla/core/bytes.h"
#include "olla/io/file.h"
#include "olla/io/graph_json.h"
#include "olla/io/pins_json.h"
#include "olla/io/plan_json.h"
#include "olla/pipeline/optimize.h"
#include "olla/placement/place.h"
#include "olla/report/optimize_report.h"

namespace olla::cli {
namespace {

struct OptimizeCommandOptions {
  std::string graph_path;
  std::string output_path;
  std::string report_path;
  std::string pins_path;
  OptimizeOptions optimize;
  double time_limit_seconds = 10.0;
  std::optional<int64_t> work_limit;
  bool json = false;
};

int RunOptimize(OptimizeCommandOptions options) {
  const Budget budget = Budget::Of(options.time_limit_seconds,
                                   options.work_limit.value_or(Budget::kUnlimitedWork));
  const auto started = std::chrono::steady_clock::now();
  StatusOr<Graph> graph = LoadGraph(options.graph_path);
  if (!graph.ok()) return ReportError(graph.status());
  if (!options.pins_path.empty()) {
    StatusOr<std::vector<std::vector<OpId>>> chains = LoadPins(options.pins_path, *graph);
    if (!chains.ok()) return ReportError(chains.status());
    options.optimize.schedule.pins = std::move(chains).value();
  }
  // Progress on a terminal: the stage and the time, once a second has passed.
  bool showed_progress = false;
  if (isatty(STDERR_FILENO)) {
    options.optimize.progress = [started, &showed_progress](const std::string& line) {
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
              .count();
      if (elapsed < 1.0) return;
      std::cerr << fmt::format("\r\033[K{:.1f} s  {}", elapsed, line) << std::flush;
      showed_progress = true;
    };
  }
  StatusOr<OptimizeResult> result = Optimize(*graph, options.optimize, budget);
  if (showed_progress) std::cerr << "\r\033[K" << std::flush;
  if (!result.ok()) {
    const bool from_pins = !options.pins_path.empty() &&
                           result.status().message().find("cycle") != std::string::npos;
    return ReportError(from_pins ? result.status().WithContext(options.pins_path)
                                 : result.status());
  }
  if (result->fits() && !options.output_path.empty()) {
    if (Status status = SavePlan(*graph, *result->plan, options.output_path);
        !status.ok())
      return ReportError(status);
  }
  if (!options.report_path.empty()) {
    if (Status status =
            WriteFile(options.report_path, OptimizeReportMarkdown(*graph, *result));
        !status.ok()) {
      return ReportError(status);
    }
  }
  if (options.json) {
    std::cout << OptimizeReportJson(*graph, *result).dump(2) << "\n";
  } else {
    std::cout << OptimizeReportText(*graph, *result);
  }
  if (result->fits()) return kExitOk;
  const int64_t budget_bytes = *options.optimize.memory_budget;
  if (!result->plan) {
    const LowerBounds& bounds = result->eager.bounds;
    const bool forced = bounds.forced_live_bytes >= bounds.single_op_bytes;
    std::cerr << fmt::format(
        "olla: no plan fits in {} bytes: {} bytes are live at {} in every order (proof: "
        "the {} bound)\n",
        budget_bytes, bounds.best(),
        graph->Describe(forced ? bounds.forced_live_op : bounds.single_op),
        forced ? "forced-live" : "single-op");
  } else {
    std::cerr << fmt::format(
        "olla: no plan within {} bytes found: the smallest arena found is {} bytes, the "
        "proven lower bound {} bytes\n",
        budget_bytes, result->placement.arena_bytes,
        std::max(result->schedule.lower_bound_bytes,
                 result->placement.lower_bound_bytes));
  }
  return kExitNoPlan;
}

}  // namespace

void AddOptimizeCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<OptimizeCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "optimize",
      "Find the operator order and the tensor offsets that need the least memory, check "
      "the plan, and report what it saves against eager PyTorch.");
  command->add_option("graph", options->graph_path, "Graph file (.json or .json.gz)")
      ->required();
  command->add_option("-o,--output", options->output_path,
                      "Write the plan (order and offsets; docs/plan-format.md)");
  command->add_option("--report", options->report_path, "Write the report as Markdown");
  command
      ->add_option("--time-limit", options->time_limit_seconds,
                   "Wall-clock seconds for the whole command (loading included); the "
                   "searches return their best so far")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command
      ->add_option("--work-limit", options->work_limit,
                   "Deterministic work units (search nodes, moves, ILP nodes) for the "
                   "whole command: the same limit gives the same plan on any machine")
      ->check(CLI::NonNegativeNumber);
  command
      ->add_option("--memory-budget", options->optimize.memory_budget,
                   "Bytes the activation arena must fit in (exit 2 when no plan does)")
      ->check(CLI::NonNegativeNumber);
  command
      ->add_option("--align", options->optimize.alignment,
                   "Align every offset and round every size up to this many bytes")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command
      ->add_option("--schedule-method", options->optimize.schedule.method,
                   "Scheduling method (olla schedule --help)")
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(kScheduleMethods),
                                                     std::end(kScheduleMethods))))
      ->capture_default_str();
  command
      ->add_option("--placement-method", options->optimize.placement_method,
                   "Placement method (olla place --help)")
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(kPlacementMethods),
                                                     std::end(kPlacementMethods))))
      ->capture_default_str();
  command->add_option("--pin", options->pins_path,
                      "Pins file: chains of ops that must run in the given order");
  command->add_flag("!--no-updates-asap", options->optimize.schedule.rules.updates_asap,
                    "Let optimizer updates run at any time, not as soon as their "
                    "gradient is ready");
  command->add_flag("--json", options->json, "Print one JSON object instead of text");
  command->callback([options, &exit_code] { exit_code = RunOptimize(*options); });
}

}  // namespace olla::cli
