#include "olla/remat/recomputable.h"

#include "olla/plan/recompute_rules.h"

namespace olla {

RecomputableBuffers FindRecomputableBuffers(const Graph& graph) {
  std::vector<char> may_rerun(static_cast<size_t>(graph.num_ops()));
  for (int32_t o = 0; o < graph.num_ops(); ++o) {
    may_rerun[static_cast<size_t>(o)] = graph.op(OpId(o)).phase == Phase::kForward &&
                                        RecomputeRefusal(graph, OpId(o)).empty();
  }
  const auto n = static_cast<size_t>(graph.num_buffers());
  RecomputableBuffers found{std::vector<char>(n), std::vector<char>(n),
                            std::vector<std::vector<OpId>>(n)};
  for (int32_t b = 0; b < graph.num_buffers(); ++b) {
    const auto i = static_cast<size_t>(b);
    for (OpId user : graph.users(BufferId(b))) {
      if (graph.op(user).phase == Phase::kBackward)
        found.backward_users[i].push_back(user);
    }
    const Buffer& buffer = graph.buffer(BufferId(b));
    const OpId producer = graph.producer(BufferId(b));
    found.copyable[i] = !buffer.persistent && !buffer.output && producer.valid() &&
                        may_rerun[producer.index()];
    found.droppable[i] =
        found.copyable[i] && buffer.size > 0 && !found.backward_users[i].empty();
  }
  return found;
}

}  // namespace olla
