#include "olla/analysis/lower_bounds.h"

#include <algorithm>
#include <bit>

#include "olla/analysis/reachability.h"
#include "olla/analysis/timeline.h"
#include "olla/graph/order.h"

namespace olla {

namespace {

// Bytes of each op's workspace and of the `counted` buffers (empty: all) among its
// inputs and outputs, distinct buffers counted once, persistent ones never.
std::vector<int64_t> Footprints(const Graph& graph, const std::vector<bool>& counted) {
  std::vector<int64_t> footprint(static_cast<size_t>(graph.num_ops()), 0);
  // last_counted[b] == o marks buffer b as already counted for op o.
  std::vector<int32_t> last_counted(static_cast<size_t>(graph.num_buffers()), -1);
  for (int32_t o = 0; o < graph.num_ops(); ++o) {
    const Op& op = graph.op(OpId(o));
    int64_t bytes = op.workspace;
    auto count = [&](BufferId b) {
      if (graph.buffer(b).persistent || last_counted[b.index()] == o) return;
      if (!counted.empty() && !counted[b.index()]) return;
      last_counted[b.index()] = o;
      bytes += graph.buffer(b).size;
    };
    for (BufferId b : op.allocates) count(b);
    for (BufferId b : op.uses) count(b);
    footprint[static_cast<size_t>(o)] = bytes;
  }
  return footprint;
}

}  // namespace

std::vector<int64_t> SingleOpFootprints(const Graph& graph,
                                        const std::vector<bool>& counted) {
  return Footprints(graph, counted);
}

namespace {

// The eager order's largest live bytes over each block of TargetMask::kBits ops: what
// no op of the block can exceed.
std::vector<int64_t> EagerLivePerBlock(const Graph& graph) {
  const int32_t n = graph.num_ops();
  const std::vector<int64_t> live = LiveBytesByOp(graph, EagerOrder(graph));
  std::vector<int64_t> most(
      (static_cast<size_t>(n) + TargetMask::kBits - 1) / TargetMask::kBits, 0);
  for (int32_t o = 0; o < n; ++o) {
    int64_t& block = most[static_cast<size_t>(o / TargetMask::kBits)];
    block = std::max(block, live[static_cast<size_t>(o)]);
  }
  return most;
}

}  // namespace

std::vector<int64_t> ForcedLiveBytes(const Graph& graph) {
  return ComputeForcedLive(graph, Budget()).bytes;
}

ForcedLive ComputeForcedLive(const Graph& graph, const Budget& budget,
                             const std::vector<bool>& counted) {
  const int32_t n = graph.num_ops();
  ForcedLive result;
  result.bytes = Footprints(graph, counted);  // Where no block is computed.
  std::vector<int64_t>& forced = result.bytes;

  // A buffer can only be forced live at ops between its producer and its last user in
  // eager order; precompute that window to skip buffers that miss a block.
  struct Candidate {
    BufferId id;
    int32_t first;  // Lowest op id at which it can be forced live.
    int32_t last;   // Highest.
  };
  std::vector<Candidate> candidates;
  for (int32_t b = 0; b < graph.num_buffers(); ++b) {
    const BufferId id(b);
    const Buffer& buffer = graph.buffer(id);
    if (buffer.persistent || buffer.size == 0) continue;
    if (!counted.empty() && !counted[static_cast<size_t>(b)]) continue;
    const OpId producer = graph.producer(id);
    int32_t last = producer.valid() ? producer.value() : -1;
    for (OpId user : graph.users(id)) last = std::max(last, user.value());
    if (buffer.output) last = n - 1;
    if (last < 0) continue;  // An unused input: forced live nowhere.
    candidates.push_back({id, producer.valid() ? producer.value() : 0, last});
  }

  std::vector<int32_t> blocks((static_cast<size_t>(n) + TargetMask::kBits - 1) /
                              TargetMask::kBits);
  for (size_t i = 0; i < blocks.size(); ++i) blocks[i] = static_cast<int32_t>(i);
  if (budget.has_deadline()) {
    const std::vector<int64_t> most = EagerLivePerBlock(graph);
    std::stable_sort(blocks.begin(), blocks.end(),
                     [&](int32_t a, int32_t b) { return most[a] > most[b]; });
  }
  ReachBlock block;
  for (const int32_t index : blocks) {
    if (budget.OutOfTime()) break;
    const int32_t first = index * TargetMask::kBits;
    const int32_t count = std::min(TargetMask::kBits, n - first);
    SweepReachBlock(graph, first, count, block);
    for (int32_t o = first; o < first + count; ++o)
      forced[static_cast<size_t>(o)] = graph.op(OpId(o)).workspace;
    const TargetMask all = TargetMask::FirstBits(count);
    for (const Candidate& c : candidates) {
      if (c.first >= first + count || c.last < first) continue;
      const Buffer& buffer = graph.buffer(c.id);
      const OpId producer = graph.producer(c.id);
      // Targets at or after the allocation...
      const TargetMask allocated =
          producer.valid() ? block.reaches_target[producer.index()] : all;
      // ...and at or before a use (or anywhere, for outputs).
      TargetMask needed = buffer.output ? all : TargetMask();
      if (producer.valid()) needed |= block.SelfBit(producer);
      for (OpId user : graph.users(c.id))
        needed |= block.reached_from_target[user.index()];
      const TargetMask live = allocated & needed;
      for (int32_t w = 0; w < TargetMask::kWords; ++w) {
        for (uint64_t bits = live.words[static_cast<size_t>(w)]; bits != 0;
             bits &= bits - 1) {
          forced[static_cast<size_t>(first + 64 * w + std::countr_zero(bits))] +=
              buffer.size;
        }
      }
    }
    result.ops_computed += count;
  }
  return result;
}

LowerBounds ComputeLowerBounds(const Graph& graph, const Budget& budget) {
  LowerBounds bounds;
  const std::vector<int64_t> footprints = SingleOpFootprints(graph);
  ForcedLive forced_live = ComputeForcedLive(graph, budget);
  bounds.forced_live = std::move(forced_live.bytes);
  bounds.forced_live_ops_computed = forced_live.ops_computed;
  const std::vector<int64_t>& forced = bounds.forced_live;
  auto best = [](const std::vector<int64_t>& values) {
    return static_cast<int32_t>(std::max_element(values.begin(), values.end()) -
                                values.begin());
  };
  bounds.single_op = OpId(best(footprints));
  bounds.single_op_bytes = footprints[bounds.single_op.index()];
  bounds.forced_live_op = OpId(best(forced));
  bounds.forced_live_bytes = forced[bounds.forced_live_op.index()];
  return bounds;
}

}  // namespace olla
