#include "olla/simulation/eager_report.h"

#include "olla/analysis/lifetimes.h"
#include "olla/analysis/timeline.h"
#include "olla/analysis/topology.h"
#include "olla/graph/order.h"

namespace olla {

EagerReport SimulateEager(const Graph& graph, const Budget& budget) {
  EagerReport report;
  report.graph_name = graph.name();
  report.ops = graph.num_ops();
  report.buffers = graph.num_buffers();
  for (const Buffer& buffer : graph.buffers())
    report.persistent_buffers += buffer.persistent;
  report.persistent_bytes = graph.persistent_bytes();
  report.edges = graph.num_edges();
  report.critical_path_length = ComputeLevels(graph).critical_path_length;

  const Order eager = EagerOrder(graph);
  const Lifetimes lifetimes = ComputeLifetimes(graph, eager);
  const MemoryTimeline timeline = ComputeTimeline(graph, eager, lifetimes);
  report.peak_live_bytes = timeline.peak_bytes;
  report.peak_step = timeline.peak_step;
  report.peak_op = timeline.peak_op;

  report.allocator = ReplayCachingAllocator(graph, eager, lifetimes);
  report.bounds = ComputeLowerBounds(graph, budget);
  return report;
}

}  // namespace olla
