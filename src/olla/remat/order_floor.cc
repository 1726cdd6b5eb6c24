#include "olla/remat/order_floor.h"

#include <algorithm>
#include <utility>

namespace olla {

std::vector<FreeSpan> FreeSpans(const Graph& graph, const Order& order,
                                const Lifetimes& lifetimes,
                                const RecomputableBuffers& buffers) {
  std::vector<int32_t> step_of(static_cast<size_t>(graph.num_ops()));
  for (size_t step = 0; step < order.ops.size(); ++step)
    step_of[order.ops[step].index()] = static_cast<int32_t>(step);
  std::vector<FreeSpan> spans;
  for (int32_t o = 0; o < graph.num_ops(); ++o) {
    for (BufferId b : graph.op(OpId(o)).allocates) {
      if (!buffers.droppable[b.index()]) continue;
      const std::vector<OpId>& late = buffers.late_users[b.index()];
      FreeSpan span{b,
                    OpId(o),
                    graph.buffer(b).size,
                    step_of[static_cast<size_t>(o)],
                    lifetimes[b].end,
                    {}};
      for (OpId user : graph.users(b)) {
        const int32_t at = step_of[user.index()];
        if (std::find(late.begin(), late.end(), user) != late.end())
          span.reads.push_back(at);
        else
          span.after = std::max(span.after, at);
      }
      std::sort(span.reads.begin(), span.reads.end());
      span.reads.erase(std::unique(span.reads.begin(), span.reads.end()),
                       span.reads.end());
      spans.push_back(std::move(span));
    }
  }
  return spans;
}

std::vector<int64_t> KeptBytes(const MemoryTimeline& timeline,
                               const std::vector<FreeSpan>& spans) {
  const size_t steps = timeline.live_bytes.size();
  std::vector<int64_t> freed(steps + 1, 0);  // A difference array.
  for (const FreeSpan& span : spans) {
    if (span.after + 1 >= span.end) continue;
    freed[static_cast<size_t>(span.after + 1)] += span.size;
    freed[static_cast<size_t>(span.end)] -= span.size;
    for (int32_t read : span.reads) {
      if (read <= span.after || read >= span.end) continue;
      freed[static_cast<size_t>(read)] -= span.size;
      freed[static_cast<size_t>(read + 1)] += span.size;
    }
  }
  std::vector<int64_t> kept(steps);
  int64_t free_here = 0;
  for (size_t step = 0; step < steps; ++step) {
    free_here += freed[step];
    kept[step] = timeline.live_bytes[step] - free_here;
  }
  return kept;
}

OrderFloor FloorOf(const std::vector<int64_t>& kept) {
  OrderFloor floor;
  for (size_t step = 0; step < kept.size(); ++step) {
    if (kept[step] <= floor.bytes) continue;
    floor.bytes = kept[step];
    floor.step = static_cast<int32_t>(step);
  }
  return floor;
}

OrderFloor ComputeOrderFloor(const Graph& graph, const Order& order) {
  const Lifetimes lifetimes = ComputeLifetimes(graph, order);
  return FloorOf(
      KeptBytes(ComputeTimeline(graph, order, lifetimes),
                FreeSpans(graph, order, lifetimes, FindRecomputableBuffers(graph))));
}

}  // namespace olla
