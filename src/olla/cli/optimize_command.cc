// olla optimize GRAPH -o PLAN.json: the whole job in one command. The flags come from
// the option table (pipeline/option_table.h) and become an OptimizeRequest; the job
// (pipeline/job.h) loads and decides; this file prints and writes.
#include <iostream>

#include "olla/cli/commands.h"
#include "olla/cli/exit_codes.h"
#include "olla/cli/progress.h"
#include "olla/cli/table_flags.h"
#include "olla/io/file.h"
#include "olla/io/plan_json.h"
#include "olla/pipeline/job.h"
#include "olla/report/optimize_report.h"
#include "olla/report/svg.h"

namespace olla::cli {
namespace {

struct OptimizeCommandOptions {
  std::string graph_path;
  std::string output_path;
  std::string report_path;
  std::string svg_path;
  std::string pins_path;
  bool json = false;
  TableFlags table;
};

int RunOptimize(const OptimizeCommandOptions& command) {
  StatusOr<OptimizeRequest> request = RequestOf(command.table);
  if (!request.ok()) return ReportError(request.status());
  StatusOr<OptimizeJob> job = [&] {
    Progress progress;  // On stderr when it is a terminal.
    request->options.progress = progress.Callback();
    return RunOptimizeJob({command.graph_path}, *request, command.pins_path);
  }();
  if (!job.ok()) return ReportError(job.status());
  const Graph& graph = job->graph;
  const OptimizeResult& result = job->result;
  if (result.conclusion == Conclusion::kPlanned && !command.output_path.empty()) {
    if (Status status = SavePlan(graph, *result.plan, command.output_path);
        !status.ok()) {
      return ReportError(status);
    }
  }
  if (!command.report_path.empty()) {
    if (Status status =
            WriteFile(command.report_path, OptimizeReportMarkdown(graph, result));
        !status.ok()) {
      return ReportError(status);
    }
  }
  if (!command.svg_path.empty() && result.plan) {
    if (Status status = WriteFile(command.svg_path, OptimizeSvg(graph, result));
        !status.ok()) {
      return ReportError(status);
    }
  }
  if (command.json) {
    std::cout << OptimizeReportJson(graph, result).dump(2) << "\n";
  } else {
    std::cout << OptimizeReportText(graph, result);
  }
  if (result.conclusion == Conclusion::kPlanned) return kExitOk;
  std::cerr << "olla: " << result.reason << "\n";
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
  command->add_option(
      "--svg", options->svg_path,
      "Draw memory over the step, eager PyTorch beside olla's plan (SVG)");
  AddTableFlags(*command, options->table);
  command->add_option("--pin", options->pins_path,
                      "Pins file: chains of ops that must run in the given order");
  command->add_flag("--json", options->json, "Print one JSON object instead of text");
  command->callback([options, &exit_code] { exit_code = RunOptimize(*options); });
}

}  // namespace olla::cli
