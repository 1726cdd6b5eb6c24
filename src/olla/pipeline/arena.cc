#include "olla/pipeline/arena.h"

#include <fmt/format.h>

#include "olla/analysis/lifetimes.h"
#include "olla/core/bytes.h"
#include "olla/core/limits.h"

namespace olla {

StatusOr<ArenaProblem> MakeArenaProblem(const Graph& graph, const Order& order,
                                        int64_t alignment) {
  if (alignment <= 0 || alignment > kMaxAlignment)
    return InvalidInput(fmt::format("alignment {} is not in [1, 2^30]", alignment));
  ArenaProblem arena;
  arena.alignment = alignment;
  const Lifetimes lifetimes = ComputeLifetimes(graph, order);
  auto add_row = [&](std::string id, int64_t start, int64_t end, int64_t size,
                     BufferId buffer, OpId workspace_of) {
    PlacementBuffer row;
    row.id = std::move(id);
    row.start = start;
    row.end = end;
    row.size = size;
    row.alignment = alignment;
    arena.problem.buffers.push_back(std::move(row));
    arena.buffer.push_back(buffer);
    arena.workspace_of.push_back(workspace_of);
  };
  for (int32_t b = 0; b < graph.num_buffers(); ++b) {
    const BufferId id(b);
    const Buffer& buffer = graph.buffer(id);
    if (buffer.persistent) continue;
    const std::optional<int64_t> size = CheckedRoundUp(buffer.size, alignment);
    if (!size) {
      return InvalidInput(fmt::format("{}: size {} rounded up to {} overflows 63 bits",
                                      graph.Describe(id), buffer.size, alignment));
    }
    const Lifetime& life = lifetimes[id];
    add_row(std::to_string(buffer.file_id), life.start, life.end, *size, id, OpId());
  }
  for (int32_t s = 0; s < order.size(); ++s) {
    const OpId op = order.ops[static_cast<size_t>(s)];
    const int64_t workspace = graph.op(op).workspace;
    if (workspace == 0) continue;
    const std::optional<int64_t> size = CheckedRoundUp(workspace, alignment);
    if (!size) {
      return InvalidInput(
          fmt::format("{}: workspace {} rounded up to {} overflows 63 bits",
                      graph.Describe(op), workspace, alignment));
    }
    add_row(fmt::format("workspace of op {}", graph.op(op).file_id), s, s + 1, *size,
            BufferId(), op);
  }
  int64_t total = 0;
  for (const PlacementBuffer& row : arena.problem.buffers) {
    const std::optional<int64_t> sum = CheckedAdd(total, row.size);
    if (!sum || *sum > kMaxTotalBytes) {
      return InvalidInput(fmt::format(
          "sizes rounded up to {} bytes exceed 2^62 bytes in all", alignment));
    }
    total = *sum;
  }
  arena.least_bytes = ComputeLiveBytesBound(arena.problem).bytes;
  return arena;
}

Plan MakePlan(const Graph& graph, const Order& order, const ArenaProblem& arena,
              const Placement& placement) {
  Plan plan;
  plan.order = order;
  plan.alignment = arena.alignment;
  plan.arena_bytes = placement.arena_bytes;
  plan.offsets.assign(static_cast<size_t>(graph.num_buffers()), std::nullopt);
  plan.workspace_offsets.assign(static_cast<size_t>(graph.num_ops()), std::nullopt);
  for (size_t row = 0; row < arena.buffer.size(); ++row) {
    const int64_t offset = placement.offsets[row];
    if (arena.buffer[row].valid()) {
      plan.offsets[arena.buffer[row].index()] = offset;
    } else {
      plan.workspace_offsets[arena.workspace_of[row].index()] = offset;
    }
  }
  return plan;
}

StatusOr<PlacedArena> PlaceArena(const Graph& graph, const Order& order,
                                 const ArenaProblem& arena, const PlaceOptions& options,
                                 const Budget& budget) {
  StatusOr<Placement> placement = Place(arena.problem, options, budget);
  if (!placement.ok())
    return Internal("the arena problem was rejected: " + placement.status().message());
  Plan plan = MakePlan(graph, order, arena, *placement);
  return PlacedArena{std::move(plan), std::move(placement).value()};
}

}  // namespace olla
