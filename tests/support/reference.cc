#include "reference.h"

#include <algorithm>

#include "graph_builder.h"

namespace olla::testing {

Graph Figure3Graph() {
  GraphBuilder b;
  const BufferId e1 = b.Buffer(10 * kMiB, "e1");
  const BufferId e2 = b.Buffer(10 * kMiB, "e2");
  const BufferId e3 = b.Buffer(20 * kMiB, "e3");
  const BufferId e4 = b.Buffer(30 * kMiB, "e4");
  const BufferId e5 = b.Buffer(5 * kMiB, "e5");
  const BufferId e6 = b.Output(10 * kMiB, "e6");
  b.Op({e2, e3}, {e1});
  b.Op({e4}, {e2});
  b.Op({e5}, {e3});
  b.Op({e6}, {e4, e5});
  const int64_t file_ids[] = {1, 3, 2, 4};
  for (size_t i = 0; i < 4; ++i) {
    b.ops()[i].file_id = file_ids[i];
    b.ops()[i].name = "v" + std::to_string(file_ids[i]);
  }
  return b.Build();
}

std::vector<int64_t> ReferenceLiveBytes(const Graph& graph, const Order& order) {
  const int32_t n = order.size();
  std::vector<int32_t> step(static_cast<size_t>(graph.num_ops()));
  for (int32_t s = 0; s < n; ++s) step[order.ops[static_cast<size_t>(s)].index()] = s;
  std::vector<int64_t> live(static_cast<size_t>(n), 0);
  for (int32_t t = 0; t < n; ++t) {
    live[static_cast<size_t>(t)] = graph.op(order.ops[static_cast<size_t>(t)]).workspace;
    for (int32_t b = 0; b < graph.num_buffers(); ++b) {
      const BufferId id(b);
      const Buffer& buffer = graph.buffer(id);
      if (buffer.persistent) continue;
      const OpId producer = graph.producer(id);
      const bool exists = !producer.valid() || step[producer.index()] <= t;
      bool needed = buffer.output || (producer.valid() && step[producer.index()] == t) ||
                    (!producer.valid() && t == 0);
      for (OpId user : graph.users(id)) needed = needed || step[user.index()] >= t;
      if (exists && needed) live[static_cast<size_t>(t)] += buffer.size;
    }
  }
  return live;
}

void ForEachValidOrder(const Graph& graph,
                       const std::function<void(const Order&)>& visit) {
  const int32_t n = graph.num_ops();
  std::vector<int32_t> missing(static_cast<size_t>(n));
  for (int32_t o = 0; o < n; ++o) {
    missing[static_cast<size_t>(o)] =
        static_cast<int32_t>(graph.predecessors(OpId(o)).size());
  }
  Order order;
  std::function<void()> extend = [&] {
    if (order.size() == n) {
      visit(order);
      return;
    }
    for (int32_t o = 0; o < n; ++o) {
      if (missing[static_cast<size_t>(o)] != 0) continue;
      missing[static_cast<size_t>(o)] = -1;  // Scheduled.
      for (OpId next : graph.successors(OpId(o))) --missing[next.index()];
      order.ops.push_back(OpId(o));
      extend();
      order.ops.pop_back();
      for (OpId next : graph.successors(OpId(o))) ++missing[next.index()];
      missing[static_cast<size_t>(o)] = 0;
    }
  };
  extend();
}

int64_t BruteForceOptimalPeak(const Graph& graph) {
  int64_t best = INT64_MAX;
  ForEachValidOrder(graph, [&](const Order& order) {
    const std::vector<int64_t> live = ReferenceLiveBytes(graph, order);
    best = std::min(best, *std::max_element(live.begin(), live.end()));
  });
  return best;
}

std::vector<std::vector<bool>> ReferenceReachability(const Graph& graph) {
  const auto n = static_cast<size_t>(graph.num_ops());
  std::vector<std::vector<bool>> reaches(n, std::vector<bool>(n, false));
  for (size_t a = 0; a < n; ++a) {
    reaches[a][a] = true;
    for (OpId next : graph.successors(OpId(static_cast<int32_t>(a))))
      reaches[a][next.index()] = true;
  }
  for (size_t k = 0; k < n; ++k) {
    for (size_t a = 0; a < n; ++a) {
      for (size_t b = 0; b < n; ++b) {
        if (reaches[a][k] && reaches[k][b]) reaches[a][b] = true;
      }
    }
  }
  return reaches;
}

}  // namespace olla::testing
