#include "olla/analysis/timeline.h"

namespace olla {

MemoryTimeline ComputeTimeline(const Graph& graph, const Order& order,
                               const Lifetimes& lifetimes) {
  const auto steps = static_cast<size_t>(order.size());
  // delta[s] is the change in live bytes entering step s. Sums stay in range because
  // Graph::Create proved that the total of all sizes fits in 64 bits.
  std::vector<int64_t> delta(steps + 1, 0);
  for (int32_t b = 0; b < graph.num_buffers(); ++b) {
    const Lifetime& life = lifetimes.of[static_cast<size_t>(b)];
    if (life.empty()) continue;
    const int64_t size = graph.buffer(BufferId(b)).size;
    delta[static_cast<size_t>(life.start)] += size;
    delta[static_cast<size_t>(life.end)] -= size;
  }
  MemoryTimeline timeline;
  timeline.live_bytes.resize(steps);
  int64_t live = 0;
  for (size_t s = 0; s < steps; ++s) {
    live += delta[s];
    const int64_t bytes = live + graph.op(order.ops[s]).workspace;
    timeline.live_bytes[s] = bytes;
    if (s == 0 || bytes > timeline.peak_bytes) {
      timeline.peak_bytes = bytes;
      timeline.peak_step = static_cast<int32_t>(s);
      timeline.peak_op = order.ops[s];
    }
  }
  return timeline;
}

std::vector<int64_t> LiveBytesByOp(const Graph& graph, const Order& order) {
  const MemoryTimeline timeline =
      ComputeTimeline(graph, order, ComputeLifetimes(graph, order));
  std::vector<int64_t> live(static_cast<size_t>(graph.num_ops()), 0);
  for (size_t step = 0; step < order.ops.size(); ++step)
    live[order.ops[step].index()] = timeline.live_bytes[step];
  return live;
}

}  // namespace olla
