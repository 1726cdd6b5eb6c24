// olla tradeoff GRAPH: budget mode's memory-compute curve (pipeline/tradeoff.h), the
// table a user reads to choose --memory-budget. The flags are the option table's but the
// budget, which the curve sets itself.
#include <iostream>

#include "olla/cli/commands.h"
#include "olla/cli/exit_codes.h"
#include "olla/cli/progress.h"
#include "olla/cli/table_flags.h"
#include "olla/pipeline/job.h"
#include "olla/report/tradeoff_report.h"

namespace olla::cli {
namespace {

struct TradeoffCommandOptions {
  std::string graph_path;
  int points = 10;
  bool json = false;
  TableFlags table;
};

int RunTradeoff(const TradeoffCommandOptions& command) {
  StatusOr<OptimizeRequest> request = RequestOf(command.table);
  if (!request.ok()) return ReportError(request.status());
  if (Status status = CheckTradeoffPoints(command.points); !status.ok())
    return ReportError(status.WithContext("option --points"));
  StatusOr<TradeoffJob> job = [&] {
    Progress progress;  // On stderr when it is a terminal.
    request->options.progress = progress.Callback();
    return RunTradeoffJob({command.graph_path}, *request, command.points);
  }();
  if (!job.ok()) return ReportError(job.status());
  if (command.json) {
    std::cout << TradeoffJson(job->graph, job->tradeoff).dump(2) << "\n";
  } else {
    std::cout << TradeoffText(job->graph, job->tradeoff);
  }
  return kExitOk;
}

}  // namespace

void AddTradeoffCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<TradeoffCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "tradeoff",
      "Budget mode's memory-compute curve: from the arena without recomputation down to "
      "the smallest arena recomputation reaches, the arena and the added compute of the "
      "cheapest plan at each budget.");
  command->add_option("graph", options->graph_path, "Graph file (.json or .json.gz)")
      ->required();
  command->add_option("--points", options->points,
                      "Budgets on the curve, the two ends included; default 10");
  AddTableFlags(*command, options->table, AllTableOptionsBut({"memory_budget"}));
  command->add_flag("--json", options->json, "Print one JSON object instead of text");
  command->callback([options, &exit_code] { exit_code = RunTradeoff(*options); });
}

}  // namespace olla::cli
