#include "olla/remat/recomputable.h"

#include <span>

#include "olla/plan/recompute_rules.h"

namespace olla {

RecomputableBuffers FindRecomputableBuffers(const Graph& graph, Reach reach) {
  std::vector<char> may_rerun(static_cast<size_t>(graph.num_ops()));
  for (int32_t o = 0; o < graph.num_ops(); ++o) {
    const bool reached =
        reach == Reach::kWholeStep || graph.op(OpId(o)).phase == Phase::kForward;
    may_rerun[static_cast<size_t>(o)] =
        reached && RecomputeRefusal(graph, OpId(o)).empty();
  }
  const auto n = static_cast<size_t>(graph.num_buffers());
  RecomputableBuffers found{std::vector<char>(n), std::vector<char>(n),
                            std::vector<std::vector<OpId>>(n)};
  for (int32_t b = 0; b < graph.num_buffers(); ++b) {
    const auto i = static_cast<size_t>(b);
    const Buffer& buffer = graph.buffer(BufferId(b));
    const OpId producer = graph.producer(BufferId(b));
    found.copyable[i] = !buffer.persistent && !buffer.output && producer.valid() &&
                        may_rerun[producer.index()];
    if (!producer.valid()) continue;
    const bool activation = graph.op(producer).phase == Phase::kForward;
    const std::span<const OpId> users = graph.users(BufferId(b));
    for (size_t u = 0; u < users.size(); ++u) {
      if (activation ? graph.op(users[u]).phase == Phase::kBackward : u > 0)
        found.late_users[i].push_back(users[u]);
    }
    found.droppable[i] =
        found.copyable[i] && buffer.size > 0 && !found.late_users[i].empty();
  }
  return found;
}

}  // namespace olla
