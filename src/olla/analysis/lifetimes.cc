#include "olla/analysis/lifetimes.h"

#include <algorithm>

#include "olla/analysis/topology.h"

namespace olla {

Lifetimes ComputeLifetimes(const Graph& graph, const Order& order) {
  OLLA_CHECK(order.size() == graph.num_ops(), "order does not cover the graph");
  const std::vector<int32_t> step = StepsOf(graph, order);
  Lifetimes lifetimes;
  lifetimes.of.resize(static_cast<size_t>(graph.num_buffers()));
  for (int32_t b = 0; b < graph.num_buffers(); ++b) {
    const BufferId id(b);
    const Buffer& buffer = graph.buffer(id);
    if (buffer.persistent) continue;
    const OpId producer = graph.producer(id);
    Lifetime& life = lifetimes.of[static_cast<size_t>(b)];
    life.start = producer.valid() ? step[producer.index()] : 0;
    life.end = life.start + 1;
    for (OpId user : graph.users(id))
      life.end = std::max(life.end, step[user.index()] + 1);
    if (buffer.output) life.end = order.size();
  }
  return lifetimes;
}

}  // namespace olla
