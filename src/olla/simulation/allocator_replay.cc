#include "olla/simulation/allocator_replay.h"

#include <vector>

#include "olla/simulation/caching_allocator.h"

namespace olla {

double AllocatorReplay::fragmentation() const {
  if (reserved_peak_bytes == 0) return 0.0;
  return static_cast<double>(reserved_peak_bytes - peak_allocated_bytes) /
         static_cast<double>(reserved_peak_bytes);
}

AllocatorReplay ReplayCachingAllocator(const Graph& graph, const Order& order,
                                       const Lifetimes& lifetimes) {
  CachingAllocatorModel allocator;
  AllocatorReplay replay;
  int32_t current_step = -1;
  std::vector<CachingAllocatorModel::Handle> handle(
      static_cast<size_t>(graph.num_buffers()), CachingAllocatorModel::kNoBlock);
  auto allocate = [&](int64_t size) {
    const int64_t before = allocator.peak_reserved_bytes();
    const auto h = allocator.Allocate(size);
    if (allocator.peak_reserved_bytes() > before) replay.peak_step = current_step;
    return h;
  };
  auto address = [&](CachingAllocatorModel::Handle h) {
    return h == CachingAllocatorModel::kNoBlock ? int64_t{-1} : allocator.address(h);
  };
  replay.addresses.assign(static_cast<size_t>(graph.num_buffers()), -1);
  replay.workspace_addresses.assign(static_cast<size_t>(order.size()), -1);

  for (int32_t b = 0; b < graph.num_buffers(); ++b) {
    if (graph.buffer(BufferId(b)).persistent) {
      handle[static_cast<size_t>(b)] = allocate(graph.buffer(BufferId(b)).size);
      replay.addresses[static_cast<size_t>(b)] = address(handle[static_cast<size_t>(b)]);
    }
  }
  // Buffers by the step after which they die; graph outputs never die.
  std::vector<std::vector<BufferId>> dying(static_cast<size_t>(order.size()));
  for (int32_t b = 0; b < graph.num_buffers(); ++b) {
    const BufferId id(b);
    const Buffer& buffer = graph.buffer(id);
    if (buffer.persistent) continue;
    if (!graph.producer(id).valid()) {
      handle[id.index()] = allocate(buffer.size);
      replay.addresses[id.index()] = address(handle[id.index()]);
    }
    if (!buffer.output) dying[static_cast<size_t>(lifetimes[id].end - 1)].push_back(id);
  }

  for (current_step = 0; current_step < order.size(); ++current_step) {
    const Op& op = graph.op(order.ops[static_cast<size_t>(current_step)]);
    for (BufferId b : op.allocates) {
      handle[b.index()] = allocate(graph.buffer(b).size);
      replay.addresses[b.index()] = address(handle[b.index()]);
    }
    const CachingAllocatorModel::Handle workspace = allocate(op.workspace);
    replay.workspace_addresses[static_cast<size_t>(current_step)] = address(workspace);
    allocator.Free(workspace);
    for (BufferId b : dying[static_cast<size_t>(current_step)]) {
      allocator.Free(handle[b.index()]);
    }
  }
  replay.reserved_peak_bytes = allocator.peak_reserved_bytes();
  replay.allocated_at_peak_bytes = allocator.allocated_at_peak_reserved();
  replay.peak_allocated_bytes = allocator.peak_allocated_bytes();
  replay.segments = allocator.num_segments();
  return replay;
}

}  // namespace olla
