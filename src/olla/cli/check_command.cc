// olla check GRAPH PLAN: the independent validity check of a plan.
#include <iostream>

#include "olla/cli/commands.h"
#include "olla/cli/exit_codes.h"
#include "olla/io/graph_json.h"
#include "olla/io/plan_json.h"
#include "olla/report/summaries.h"
#include "olla/simulation/plan_checker.h"

namespace olla::cli {
namespace {

struct CheckOptions {
  std::string graph_path;
  std::string plan_path;
  bool json = false;
};

int RunCheck(const CheckOptions& options) {
  StatusOr<Graph> graph = LoadGraph(options.graph_path);
  if (!graph.ok()) return ReportError(graph.status());
  StatusOr<Plan> plan = LoadPlan(options.plan_path, *graph);
  if (!plan.ok()) return ReportError(plan.status());
  const PlanCheck check = CheckPlan(*graph, *plan);
  if (options.json) {
    std::cout << PlanCheckJson(*graph, *plan, check).dump(2) << "\n";
  } else if (check.valid) {
    std::cout << PlanCheckText(*graph, *plan, check);
  }
  if (!check.valid) {
    return ReportError(
        InvalidInput(options.plan_path + ": invalid plan: " + check.error));
  }
  return kExitOk;
}

}  // namespace

void AddCheckCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<CheckOptions>();
  CLI::App* command = app.add_subcommand(
      "check",
      "Check a plan against its graph: the order honours every dependency, offsets are "
      "aligned and inside the arena, and no two live buffers overlap. Exit 1 if "
      "invalid.");
  command->add_option("graph", options->graph_path, "Graph file (.json or .json.gz)")
      ->required();
  command->add_option("plan", options->plan_path, "Plan file (.json or .json.gz)")
      ->required();
  command->add_flag("--json", options->json, "Print one JSON object instead of text");
  command->callback([options, &exit_code] { exit_code = RunCheck(*options); });
}

}  // namespace olla::cli
