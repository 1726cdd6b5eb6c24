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
    const std::span<const OpId> users = graph.users(BufferId(b));
    if (graph.op(producer).phase == Phase::kForward) {
      for (OpId user : users) {
        if (graph.op(user).phase == Phase::kBackward) found.late_users[i].push_back(user);
      }
    } else {
      // Past the widest gap between two readers in eager order (the ops between
      // them are where dropping it frees its bytes).
      size_t widest = users.size();
      int32_t gap = 0;
      for (size_t u = 1; u < users.size(); ++u) {
        const int32_t apart = users[u].value() - users[u - 1].value();
        if (apart > gap) {
          gap = apart;
          widest = u;
        }
      }
      for (size_t u = widest; u < users.size(); ++u)
        found.late_users[i].push_back(users[u]);
    }
    found.droppable[i] =
        found.copyable[i] && buffer.size > 0 && !found.late_users[i].empty();
  }
  return found;
}

}  // namespace olla
