#include "olla/simulation/plan_checker.h"

#include <algorithm>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "olla/core/bytes.h"
#include "olla/plan/expand.h"
#include "olla/simulation/overlap.h"

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

// One placed slot (a buffer or a workspace): non-negative, aligned, inside the arena.
// `describe` names it only when something is wrong. Extends `arena` to its end.
template <typename Describe>
std::string CheckSlot(int64_t offset, int64_t size, const Plan& plan, Describe describe,
                      int64_t& arena) {
  if (offset < 0) return fmt::format("{} has negative offset {}", describe(), offset);
  if (offset % plan.alignment != 0) {
    return fmt::format("{} at offset {} is not aligned to {}", describe(), offset,
                       plan.alignment);
  }
  const auto end = CheckedAdd(offset, size);
  if (!end || *end > plan.arena_bytes) {
    return fmt::format("{} at offset {} with size {} ends outside the arena of {} bytes",
                       describe(), offset, size, plan.arena_bytes);
  }
  arena = std::max(arena, *end);
  return "";
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
    const std::optional<int64_t>& offset = plan.offsets[id.index()];
    if (graph.buffer(id).persistent) {
      if (offset) return graph.Describe(id) + " is persistent and must not be placed";
      continue;
    }
    if (!offset) return graph.Describe(id) + " has no offset";
    std::string error = CheckSlot(
        *offset, graph.buffer(id).size, plan, [&] { return graph.Describe(id); }, arena);
    if (!error.empty()) return error;
  }
  if (!plan.places_workspace()) return "";
  if (plan.workspace_offsets.size() != static_cast<size_t>(graph.num_ops()))
    return "plan workspace offsets do not match the graph's ops";
  for (int32_t o = 0; o < graph.num_ops(); ++o) {
    const OpId id(o);
    const std::optional<int64_t>& offset = plan.workspace_offsets[id.index()];
    auto describe = [&] { return "the workspace of " + graph.Describe(id); };
    if (graph.op(id).workspace == 0) {
      if (offset) return graph.Describe(id) + " has no workspace to place";
      continue;
    }
    if (!offset) return describe() + " has no offset";
    std::string error = CheckSlot(*offset, graph.op(id).workspace, plan, describe, arena);
    if (!error.empty()) return error;
  }
  return "";
}

std::string CheckNoOverlap(const Graph& graph, const Plan& plan,
                           const std::vector<Interval>& live) {
  // The placed buffers (and workspaces) as a bare placement problem: row i is graph
  // buffer placed[i], or the workspace of op workspace_of[i] when that is invalid.
  PlacementProblem problem;
  std::vector<int64_t> offsets;
  std::vector<BufferId> placed;
  std::vector<OpId> workspace_of;
  for (int32_t b = 0; b < graph.num_buffers(); ++b) {
    const BufferId id(b);
    if (graph.buffer(id).persistent) continue;
    PlacementBuffer buffer;
    buffer.id = std::to_string(b);
    buffer.start = live[id.index()].start;
    buffer.end = live[id.index()].end;
    buffer.size = graph.buffer(id).size;
    problem.buffers.push_back(buffer);
    offsets.push_back(*plan.offsets[id.index()]);
    placed.push_back(id);
    workspace_of.emplace_back();
  }
  for (int32_t s = 0; plan.places_workspace() && s < plan.order.size(); ++s) {
    const OpId op = plan.order.ops[static_cast<size_t>(s)];
    if (graph.op(op).workspace == 0) continue;
    PlacementBuffer buffer;
    buffer.id = "workspace " + std::to_string(op.value());
    buffer.start = s;
    buffer.end = s + 1;
    buffer.size = graph.op(op).workspace;
    problem.buffers.push_back(buffer);
    offsets.push_back(*plan.workspace_offsets[op.index()]);
    placed.emplace_back();
    workspace_of.push_back(op);
  }
  auto describe = [&](int32_t i) {
    const auto row = static_cast<size_t>(i);
    return placed[row].valid() ? graph.Describe(placed[row])
                               : "the workspace of " + graph.Describe(workspace_of[row]);
  };
  const std::optional<Overlap> overlap = FindOverlap(problem, offsets);
  if (!overlap) return "";
  auto range = [&](int32_t i) {
    const PlacementBuffer& b = problem.buffers[static_cast<size_t>(i)];
    return fmt::format("[{}, {})", offsets[static_cast<size_t>(i)],
                       offsets[static_cast<size_t>(i)] + b.size);
  };
  return fmt::format("{} {} overlaps {} {} while both are live at step {} ({})",
                     describe(overlap->first), range(overlap->first),
                     describe(overlap->second), range(overlap->second), overlap->time,
                     graph.Describe(plan.order.ops[static_cast<size_t>(overlap->time)]));
}

}  // namespace

PlanCheck CheckPlan(const Graph& original, const Plan& plan) {
  PlanCheck check;
  // A plan with recomputations runs the expanded graph, whose rules (what may run
  // twice, which precedence recomputing adds) ExpandGraph enforces; then it is checked
  // like any other.
  std::optional<ExpandedGraph> expanded;
  if (plan.recomputes()) {
    StatusOr<ExpandedGraph> made = ExpandGraph(original, plan.recompute);
    if (!made.ok()) {
      check.error = made.status().message();
      return check;
    }
    expanded = std::move(made).value();
  }
  const Graph& graph = expanded ? expanded->graph : original;
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
