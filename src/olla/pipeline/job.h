// The front ends' one entry point (the CLI and Python): a job from a graph's source to
// the library's conclusion. The request's budget starts first, so that loading the graph
// counts against the limits too; then the graph (and any pins) load, and Optimize() or
// ComputeTradeoff() decides. A front end only prints, writes or raises what comes back:
// a bad source or option is an error Status, a budget nothing fits is a result whose
// conclusion says so (OptimizeResult::conclusion and reason).
#pragma once

#include <string>

#include "olla/core/status.h"
#include "olla/graph/graph.h"
#include "olla/pipeline/option_table.h"
#include "olla/pipeline/tradeoff.h"

namespace olla {

// Where a graph comes from: a file (.json or .json.gz; docs/graph-format.md) or graph
// JSON text.
struct GraphSource {
  std::string path_or_text;
  bool from_file = true;
};

struct OptimizeJob {
  Graph graph;
  OptimizeResult result;
};

// `pins_path`: a pins file (docs/schedule.md, "Pins") whose chains the order keeps; ""
// for none.
StatusOr<OptimizeJob> RunOptimizeJob(const GraphSource& source, OptimizeRequest request,
                                     const std::string& pins_path = "");

struct TradeoffJob {
  Graph graph;
  Tradeoff tradeoff;
};

StatusOr<TradeoffJob> RunTradeoffJob(const GraphSource& source,
                                     const OptimizeRequest& request, int points);

}  // namespace olla
