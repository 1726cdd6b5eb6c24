#include "olla/pipeline/job.h"

#include <utility>
#include <vector>

#include "olla/io/graph_json.h"
#include "olla/io/pins_json.h"

namespace olla {
namespace {

StatusOr<Graph> Load(const GraphSource& source) {
  return source.from_file ? LoadGraph(source.path_or_text)
                          : ParseGraph(source.path_or_text);
}

}  // namespace

StatusOr<OptimizeJob> RunOptimizeJob(const GraphSource& source, OptimizeRequest request,
                                     const std::string& pins_path) {
  const Budget budget = request.MakeBudget();
  OLLA_ASSIGN_OR_RETURN(Graph graph, Load(source));
  if (!pins_path.empty()) {
    OLLA_ASSIGN_OR_RETURN(request.options.schedule.pins, LoadPins(pins_path, graph));
    request.options.schedule.pins_source = pins_path;
  }
  OLLA_ASSIGN_OR_RETURN(OptimizeResult result, Optimize(graph, request, budget));
  return OptimizeJob{std::move(graph), std::move(result)};
}

StatusOr<TradeoffJob> RunTradeoffJob(const GraphSource& source,
                                     const OptimizeRequest& request, int points) {
  const Budget budget = request.MakeBudget();
  OLLA_ASSIGN_OR_RETURN(Graph graph, Load(source));
  OLLA_ASSIGN_OR_RETURN(Tradeoff tradeoff,
                        ComputeTradeoff(graph, request, points, budget));
  return TradeoffJob{std::move(graph), std::move(tradeoff)};
}

}  // namespace olla
