#include "olla/simulation/plan_checker.h"

#include <algorithm>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "olla/core/bytes.h"

namespace olla {
namespace {

struct Interval {
  int32_t start = 0;
  int32_t end = 0;  // Exclusive.
};

// Returns an error message, or "" when the order is a valid schedule. Fills `step`.
std::string CheckOrder(const Graph& graph, const Order& order,
                       std::vector<int32_t>& step) {
  if (order.size() != graph.num_ops()) {
    return fmt::format("order has {} ops, graph has {}", order.size(), graph.num_ops());
  }
  step.assign(static_cast<size_t>(graph.num_ops()), -1);
  for (int32_t s = 0; s < order.size(); ++s) {
    const OpId op = order.ops[static_cast<size_t>(s)];
    if (!op.valid() || op.value() >= graph.num_ops()) {
      return fmt::format("order step {} names no op of the graph", s);
    }
    if (step[op.index()] >= 0) {
      return fmt::format("order runs {} twice, at steps {} and {}", graph.Describe(op),
                         step[op.index()], s);
    }
    step[op.index()] = s;
  }
  for (int32_t o = 0; o < graph.num_ops(); ++o) {
    for (OpId after : graph.successors(OpId(o))) {
      if (step[after.index()] < step[static_cast<size_t>(o)]) {
        return fmt::format(
            "order runs {} at step {}, before {} at step {}, which must precede it",
            graph.Describe(after), step[after.index()], graph.Describe(OpId(o)),
            step[static_cast<size_t>(o)]);
      }
    }
  }
  return "";
}

// Live intervals straight from the memory model (docs/graph-format.md).
std::vector<Interval> LiveIntervals(const Graph& graph,
                                    const std::vector<int32_t>& step) {
  std::vector<Interval> live(static_cast<size_t>(graph.num_buffers()));
  for (int32_t b = 0; b < graph.num_buffers(); ++b) {
    const BufferId id(b);
    if (graph.buffer(id).persistent) continue;
    Interval& interval = live[id.index()];
    interval.start = graph.producer(id).valid() ? step[graph.producer(id).index()] : 0;
    interval.end = interval.start + 1;
    for (OpId user : graph.users(id))
      interval.end = std::max(interval.end, step[user.index()] + 1);
    if (graph.buffer(id).output) interval.end = graph.num_ops();
  }
  return live;
}

int64_t PeakLiveBytes(const Graph& graph, const Order& order,
                      const std::vector<Interval>& live) {
  int64_t peak = 0;
  std::vector<int64_t> delta(static_cast<size_t>(order.size()) + 1, 0);
  for (int32_t b = 0; b < graph.num_buffers(); ++b) {
    if (graph.buffer(BufferId(b)).persistent) continue;
    delta[static_cast<size_t>(live[static_cast<size_t>(b)].start)] +=
        graph.buffer(BufferId(b)).size;
    delta[static_cast<size_t>(live[static_cast<size_t>(b)].end)] -=
        graph.buffer(BufferId(b)).size;
  }
  int64_t bytes = 0;
  for (int32_t s = 0; s < order.size(); ++s) {
    bytes += delta[static_cast<size_t>(s)];
    peak = std::max(peak, bytes + graph.op(order.ops[static_cast<size_t>(s)]).workspace);
  }
  return peak;
}

std::string CheckOffsets(const Graph& graph, const Plan& plan, int64_t& arena) {
  if (plan.alignment <= 0)
    return fmt::format("alignment {} is not positive", plan.alignment);
  if (plan.arena_bytes < 0)
    return fmt::format("arena_bytes {} is negative", plan.arena_bytes);
  if (plan.offsets.size() != static_cast<size_t>(graph.num_buffers())) {
    return "plan offsets do not match the graph's buffers";
  }
  arena = 0;
  for (int32_t b = 0; b < graph.num_buffers(); ++b) {
    const BufferId id(b);
    const Buffer& buffer = graph.buffer(id);
    const std::optional<int64_t>& offset = plan.offsets[id.index()];
    if (buffer.persistent) {
      if (offset) return graph.Describe(id) + " is persistent and must not be placed";
      continue;
    }
    if (!offset) return graph.Describe(id) + " has no offset";
    if (*offset < 0)
      return fmt::format("{} has negative offset {}", graph.Describe(id), *offset);
    if (*offset % plan.alignment != 0) {
      return fmt::format("{} at offset {} is not aligned to {}", graph.Describe(id),
                         *offset, plan.alignment);
    }
    const auto end = CheckedAdd(*offset, buffer.size);
    if (!end || *end > plan.arena_bytes) {
      return fmt::format(
          "{} at offset {} with size {} ends outside the arena of {} bytes",
          graph.Describe(id), *offset, buffer.size, plan.arena_bytes);
    }
    arena = std::max(arena, *end);
  }
  return "";
}

// Sweeps the steps keeping the live buffers in a map keyed by offset. The map never
// holds two overlapping buffers, so a new buffer can only collide with its neighbours.
std::string CheckNoOverlap(const Graph& graph, const Plan& plan,
                           const std::vector<Interval>& live) {
  std::vector<std::vector<BufferId>> starting(static_cast<size_t>(graph.num_ops()));
  std::vector<std::vector<BufferId>> ending(static_cast<size_t>(graph.num_ops()) + 1);
  for (int32_t b = 0; b < graph.num_buffers(); ++b) {
    const BufferId id(b);
    if (graph.buffer(id).persistent || graph.buffer(id).size == 0) continue;
    starting[static_cast<size_t>(live[id.index()].start)].push_back(id);
    ending[static_cast<size_t>(live[id.index()].end)].push_back(id);
  }
  std::map<int64_t, BufferId> active;
  for (int32_t s = 0; s < graph.num_ops(); ++s) {
    for (BufferId id : ending[static_cast<size_t>(s)])
      active.erase(*plan.offsets[id.index()]);
    for (BufferId id : starting[static_cast<size_t>(s)]) {
      const int64_t offset = *plan.offsets[id.index()];
      const int64_t end = offset + graph.buffer(id).size;
      auto above = active.lower_bound(offset);
      std::optional<BufferId> clash;
      if (above != active.end() && above->first < end) clash = above->second;
      if (!clash && above != active.begin()) {
        auto below = std::prev(above);
        if (below->first + graph.buffer(below->second).size > offset)
          clash = below->second;
      }
      if (clash) {
        return fmt::format(
            "{} [{}, {}) overlaps {} [{}, {}) while both are live at step {} ({})",
            graph.Describe(id), offset, end, graph.Describe(*clash),
            *plan.offsets[clash->index()],
            *plan.offsets[clash->index()] + graph.buffer(*clash).size, s,
            graph.Describe(plan.order.ops[static_cast<size_t>(s)]));
      }
      active.emplace(offset, id);
    }
  }
  return "";
}

}  // namespace

PlanCheck CheckPlan(const Graph& graph, const Plan& plan) {
  PlanCheck check;
  std::vector<int32_t> step;
  check.error = CheckOrder(graph, plan.order, step);
  if (!check.error.empty()) return check;
  const std::vector<Interval> live = LiveIntervals(graph, step);
  check.peak_live_bytes = PeakLiveBytes(graph, plan.order, live);
  if (plan.has_placement()) {
    check.error = CheckOffsets(graph, plan, check.arena_bytes);
    if (check.error.empty()) check.error = CheckNoOverlap(graph, plan, live);
    if (!check.error.empty()) return check;
  }
  check.valid = true;
  return check;
}

}  // namespace olla
