// ReplayCachingAllocator: runs an order through the caching-allocator model, as eager
// PyTorch would allocate and free its tensors.
//
// Persistent buffers are allocated first, in id order, as a loaded model holds them;
// then graph inputs. At each step the op's outputs are allocated, then its workspace,
// which is freed at once; then every buffer whose lifetime ends at this step is freed,
// in id order. Graph outputs are never freed. Reserved bytes include the persistent
// buffers, as torch.cuda.max_memory_reserved() does. Cost: O((ops + buffers) log n).
#pragma once

#include <cstdint>
#include <vector>

#include "olla/analysis/lifetimes.h"
#include "olla/graph/graph.h"
#include "olla/graph/order.h"

namespace olla {

struct AllocatorReplay {
  int64_t reserved_peak_bytes = 0;
  int64_t allocated_at_peak_bytes = 0;  // Allocated when reserved first hit its peak.
  int64_t peak_allocated_bytes = 0;
  int32_t segments = 0;
  // Step at which reserved first reached its peak; -1 while loading persistent
  // buffers and inputs.
  int32_t peak_step = -1;
  // Where the model put each buffer (by BufferId; -1 for zero-size ones) and each step's
  // workspace (by step; -1 for none): its address in the reserved segments, which are
  // laid out one after another from 0. For pictures of the allocator's layout.
  std::vector<int64_t> addresses;
  std::vector<int64_t> workspace_addresses;

  // Share of the reserved bytes that were never in use at once:
  // (reserved peak - peak allocated) / reserved peak. Since segments are never
  // returned, this is the memory the caching allocator costs beyond its own peak use.
  double fragmentation() const;
};

AllocatorReplay ReplayCachingAllocator(const Graph& graph, const Order& order,
                                       const Lifetimes& lifetimes);

}  // namespace olla
