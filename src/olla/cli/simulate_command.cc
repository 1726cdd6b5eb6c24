// olla simulate GRAPH: the eager baselines and lower bounds of a graph.
#include <iostream>

#include "olla/cli/commands.h"
#include "olla/cli/exit_codes.h"
#include "olla/cli/table_flags.h"
#include "olla/io/graph_json.h"
#include "olla/report/summaries.h"
#include "olla/simulation/eager_report.h"

namespace olla::cli {
namespace {

struct SimulateOptions {
  std::string graph_path;
  bool json = false;
  TableFlags table;
};

int RunSimulate(const SimulateOptions& options) {
  StatusOr<OptimizeRequest> request = RequestOf(options.table);
  if (!request.ok()) return ReportError(request.status());
  // Past the limit the forced-live bound stops with what it has, weaker but valid.
  const Budget budget = request->MakeBudget();  // Loading is inside it.
  StatusOr<Graph> graph = LoadGraph(options.graph_path);
  if (!graph.ok()) return ReportError(graph.status());
  const EagerReport report = SimulateEager(*graph, budget);
  if (options.json) {
    std::cout << EagerReportJson(*graph, report).dump(2) << "\n";
  } else {
    std::cout << EagerReportText(*graph, report);
  }
  return kExitOk;
}

}  // namespace

void AddSimulateCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<SimulateOptions>();
  CLI::App* command = app.add_subcommand(
      "simulate",
      "Replay the eager order: peak live bytes (ideal allocator), PyTorch "
      "caching-allocator "
      "reserved bytes and fragmentation, and lower bounds for any order.");
  command->add_option("graph", options->graph_path, "Graph file (.json or .json.gz)")
      ->required();
  AddTableFlags(*command, options->table, {{"time_limit", ""}});
  command->add_flag("--json", options->json, "Print one JSON object instead of text");
  command->callback([options, &exit_code] { exit_code = RunSimulate(*options); });
}

}  // namespace olla::cli
