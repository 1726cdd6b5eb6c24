// olla._olla: the library inside Python, in process (python/olla/planning.py wraps it).
//
// Graphs arrive as a file path or as graph JSON text; options as a dict of option-table
// names to text (pipeline/option_table.h), so Python validates exactly as the CLI does.
// Results go back as the plan's JSON text and the report's JSON text, text, Markdown
// and SVG. Bad input raises ValueError with olla's one-line message (the option's name
// first); an internal error raises RuntimeError. Solves release the GIL.
#include <map>
#include <string>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "olla/io/graph_json.h"
#include "olla/io/plan_json.h"
#include "olla/pipeline/job.h"
#include "olla/pipeline/option_table.h"
#include "olla/plan/expand.h"
#include "olla/remat/cost.h"
#include "olla/report/optimize_report.h"
#include "olla/report/summaries.h"
#include "olla/report/svg.h"
#include "olla/report/tradeoff_report.h"
#include "olla/simulation/eager_report.h"
#include "olla/solver/isolated_solver.h"

namespace py = pybind11;

namespace olla {
namespace {

[[noreturn]] void Raise(const Status& status) {
  if (status.code() == StatusCode::kInternal) throw std::runtime_error(status.message());
  throw py::value_error(status.message());
}

template <typename T>
T ValueOrRaise(StatusOr<T> value) {
  if (!value.ok()) Raise(value.status());
  return std::move(value).value();
}

// `source` is a path (from_file) or graph JSON text.
Graph ReadGraph(const std::string& source, bool from_file) {
  return ValueOrRaise(from_file ? LoadGraph(source) : ParseGraph(source));
}

OptimizeRequest RequestOf(const std::map<std::string, std::string>& options) {
  OptimizeRequest request;
  for (const auto& [name, text] : options) {
    if (Status status = SetOptimizeOption(request, name, text); !status.ok())
      Raise(status.WithContext(name));
  }
  return request;
}

// Validates options alone, so that a front end refuses a bad one before it captures.
void PyCheckOptions(const std::map<std::string, std::string>& options) {
  RequestOf(options);
}

// The plan's order as the runtime runs it (plan/expand.h PlanStep), in file ids: per
// entry its id, the graph op it runs, the recomputation it is (its index, or None), the
// copies it allocates ({buffer: copy}) and the recomputations whose copies it reads.
py::list StepList(const Graph& graph, const OptimizeResult& result) {
  py::list steps;
  const Plan& plan = *result.plan;
  auto add = [&](int64_t entry, OpId op, py::object recomputation, py::dict copies,
                 py::list reads) {
    py::dict step;
    step["entry"] = entry;
    step["op"] = graph.op(op).file_id;
    step["recomputation"] = std::move(recomputation);
    step["copies"] = std::move(copies);
    step["reads_copies_of"] = std::move(reads);
    steps.append(step);
  };
  if (!result.expanded) {
    for (const OpId op : plan.order.ops)
      add(graph.op(op).file_id, op, py::none(), py::dict(), py::list());
    return steps;
  }
  const Graph& expanded = result.expanded->graph;
  for (const PlanStep& step : PlanSteps(*result.expanded, plan.order)) {
    py::dict copies;
    for (const auto& [output, copy] : step.copies)
      copies[py::int_(graph.buffer(output).file_id)] = expanded.buffer(copy).file_id;
    py::list reads;
    for (const int32_t run : step.reads_copies_of) reads.append(run);
    add(expanded.op(step.entry).file_id, step.op,
        step.recomputation ? py::object(py::int_(*step.recomputation)) : py::none(),
        std::move(copies), std::move(reads));
  }
  return steps;
}

// What planning.Plan reads of one result.
py::dict ResultDict(const Graph& graph, const OptimizeResult& result) {
  py::dict out;
  out["report_json"] = OptimizeReportJson(graph, result).dump();
  out["report_text"] = OptimizeReportText(graph, result);
  out["report_markdown"] = OptimizeReportMarkdown(graph, result);
  out["fits"] = result.conclusion == Conclusion::kPlanned;
  out["reason"] = result.reason;  // Why not, in the library's words.
  if (result.plan) {
    out["plan_json"] = PlanToJson(graph, *result.plan);
    out["steps"] = StepList(graph, result);
    out["svg"] = OptimizeSvg(graph, result);
  }
  return out;
}

py::dict PyOptimize(const std::string& source, bool from_file,
                    const std::map<std::string, std::string>& options) {
  const OptimizeRequest request = RequestOf(options);
  StatusOr<OptimizeJob> job = [&] {
    py::gil_scoped_release release;
    return RunOptimizeJob({source, from_file}, request);
  }();
  if (!job.ok()) Raise(job.status());
  return ResultDict(job->graph, job->result);
}

// The curve's JSON and text (report/tradeoff_report.h) and each search's result as
// PyOptimize returns it: a point's "search" indexes them.
// The request of a curve's options, checked: the table's options but the memory
// budget, which the curve sets itself, and a count of points in range.
OptimizeRequest TradeoffRequestOf(const std::map<std::string, std::string>& options,
                                  int64_t points) {
  if (options.count("memory_budget") > 0)
    throw py::value_error("memory_budget: tradeoff sets its own budgets");
  if (Status status = CheckTradeoffPoints(points); !status.ok())
    Raise(status.WithContext("points"));
  return RequestOf(options);
}

// Validates a curve's options alone, before a front end captures anything.
void PyCheckTradeoff(const std::map<std::string, std::string>& options, int64_t points) {
  TradeoffRequestOf(options, points);
}

py::dict PyTradeoff(const std::string& source, bool from_file,
                    const std::map<std::string, std::string>& options, int64_t points) {
  const OptimizeRequest request = TradeoffRequestOf(options, points);
  StatusOr<TradeoffJob> job = [&] {
    py::gil_scoped_release release;
    return RunTradeoffJob({source, from_file}, request, static_cast<int>(points));
  }();
  if (!job.ok()) Raise(job.status());
  const Graph& graph = job->graph;
  const Tradeoff& tradeoff = job->tradeoff;
  py::dict out;
  out["json"] = TradeoffJson(graph, tradeoff).dump();
  out["text"] = TradeoffText(graph, tradeoff);
  py::list searches;
  for (const OptimizeResult& result : tradeoff.searches)
    searches.append(ResultDict(graph, result));
  out["searches"] = searches;
  return out;
}

std::string PySimulate(const std::string& source, bool from_file) {
  py::gil_scoped_release release;
  const Graph graph = ReadGraph(source, from_file);
  return EagerReportJson(graph, SimulateEager(graph)).dump();
}

// Each op's cost as budget mode weighs it (remat/cost.h), by op index.
std::vector<int64_t> PyOpCosts(const std::string& source, bool from_file) {
  py::gil_scoped_release release;
  const Graph graph = ReadGraph(source, from_file);
  std::vector<int64_t> costs;
  costs.reserve(static_cast<size_t>(graph.num_ops()));
  for (int32_t o = 0; o < graph.num_ops(); ++o) costs.push_back(OpCost(graph, OpId(o)));
  return costs;
}

py::list PyOptionTable() {
  py::list table;
  for (const OptionSpec& spec : OptimizeOptionTable()) {
    py::dict entry;
    entry["name"] = spec.name;
    entry["flag"] = spec.flag;
    entry["help"] = spec.help;
    entry["default"] = OptionText(spec, OptimizeRequest());
    entry["choices"] = spec.choices;
    table.append(entry);
  }
  return table;
}

}  // namespace
}  // namespace olla

PYBIND11_MODULE(_olla, module) {
  module.doc() = "olla's library in process: optimize and simulate graphs";
  module.def("optimize", &olla::PyOptimize, py::arg("source"), py::arg("from_file"),
             py::arg("options"));
  module.def("check_tradeoff", &olla::PyCheckTradeoff, py::arg("options"),
             py::arg("points"));
  module.def("tradeoff", &olla::PyTradeoff, py::arg("source"), py::arg("from_file"),
             py::arg("options"), py::arg("points"));
  module.def("simulate", &olla::PySimulate, py::arg("source"), py::arg("from_file"));
  module.def("op_costs", &olla::PyOpCosts, py::arg("source"), py::arg("from_file"));
  module.def("option_table", &olla::PyOptionTable);
  module.def("check_options", &olla::PyCheckOptions, py::arg("options"));
  // Solves from a process with threads run in a worker process started with this
  // command (solver/isolated_solver.h); planning.py registers the interpreter.
  module.def("set_milp_worker", &olla::SetMilpWorkerCommand, py::arg("command"));
  module.def("_milp_worker", &olla::RunMilpWorker);
}
