#include "olla/schedule/executor.h"

#include <algorithm>
#include <optional>

#include "olla/analysis/reachability.h"
#include "olla/core/check.h"

namespace olla {
namespace {

// Whether running op later can only help: it frees nothing in any order (every tracked
// buffer it reads is an output or is read by a strict descendant of op), and everything
// it allocates outlives it (is used by another op, or is an output), so that its first
// successor runs with all of it live.
bool Deferrable(const MemoryModel& model, const Reachability& reach, OpId op) {
  const Graph& graph = model.graph();
  for (BufferId b : graph.op(op).allocates) {
    const auto users = graph.users(b);
    const bool outlives =
        graph.buffer(b).output ||
        std::any_of(users.begin(), users.end(), [&](OpId u) { return u != op; });
    if (model.tracked(b) && graph.buffer(b).size > 0 && !outlives) return false;
  }
  for (BufferId b : graph.op(op).uses) {
    if (!model.tracked(b) || graph.producer(b) == op || graph.buffer(b).output) continue;
    bool held_later = false;
    for (OpId user : graph.users(b)) {
      if (user != op && reach.Reaches(op, user)) {
        held_later = true;
        break;
      }
    }
    if (!held_later) return false;
  }
  return true;
}

}  // namespace

Timings::Timings(const MemoryModel& model, const ScheduleRules& rules) {
  const Graph& graph = model.graph();
  const auto n = static_cast<size_t>(graph.num_ops());
  timing_.assign(n, Timing::kFree);
  // Deferral needs descendant queries; without a closure matrix they cost a search
  // each, so very large graphs go without.
  const bool can_defer =
      rules.timing_rules && graph.num_ops() <= Reachability::kMaxMatrixOps;
  std::optional<Reachability> reach;
  if (can_defer) reach.emplace(graph);
  for (int32_t i = 0; i < graph.num_ops(); ++i) {
    const OpId op(i);
    const bool zero_cost = model.allocated_bytes(op) == 0 && graph.op(op).workspace == 0;
    if ((rules.updates_asap && graph.op(op).phase == Phase::kOptimizer) ||
        (rules.timing_rules && zero_cost)) {
      timing_[op.index()] = Timing::kAsap;
    }
  }
  // An op is deferred only when none of its successors runs as soon as ready: such a
  // successor would pull it in, earlier than anywhere it was.
  for (int32_t i = 0; i < graph.num_ops() && can_defer; ++i) {
    const OpId op(i);
    const auto next = graph.successors(op);
    if (timing_[op.index()] == Timing::kFree && graph.op(op).workspace == 0 &&
        !next.empty() &&
        std::none_of(next.begin(), next.end(),
                     [&](OpId s) { return timing_[s.index()] == Timing::kAsap; }) &&
        Deferrable(model, *reach, op)) {
      timing_[op.index()] = Timing::kDeferred;
    }
  }
  waits_for_.resize(n);
  pulls_.resize(n);
  released_by_.resize(n);
  std::vector<int32_t> seen(n, -1);
  for (int32_t i = 0; i < graph.num_ops(); ++i) {
    const OpId op(i);
    if (timing_[op.index()] == Timing::kDeferred) continue;
    std::vector<OpId> stack = {op};
    while (!stack.empty()) {
      const OpId current = stack.back();
      stack.pop_back();
      for (OpId before : graph.predecessors(current)) {
        if (seen[before.index()] == i) continue;
        seen[before.index()] = i;
        if (timing_[before.index()] == Timing::kDeferred) {
          pulls_[op.index()].push_back(before);
          stack.push_back(before);
        } else {
          waits_for_[op.index()].push_back(before);
          released_by_[before.index()].push_back(op);
        }
      }
    }
    std::sort(pulls_[op.index()].begin(), pulls_[op.index()].end());
  }
}

Executor::Executor(const MemoryModel& model, const Timings& timings)
    : model_(&model),
      timings_(&timings),
      memory_(model),
      waiting_(static_cast<size_t>(model.graph().num_ops()), 0),
      done_(static_cast<size_t>(model.graph().num_ops()), false) {
  const Graph& graph = model.graph();
  order_.ops.reserve(static_cast<size_t>(graph.num_ops()));
  trail_.reserve(static_cast<size_t>(graph.num_ops()));
  for (int32_t i = 0; i < graph.num_ops(); ++i) {
    const OpId op(i);
    if (timings.of(op) == Timing::kDeferred) continue;
    waiting_[op.index()] = static_cast<int32_t>(timings.waits_for(op).size());
    if (waiting_[op.index()] == 0) {
      (timings.of(op) == Timing::kAsap ? asap_ready_ : newly_ready_).push_back(op);
    }
  }
  int64_t most = 0;
  RunReadyAsap(most);
}

int64_t Executor::RunOne(OpId op) {
  trail_.push_back(memory_.Save());
  done_[op.index()] = true;
  order_.ops.push_back(op);
  return memory_.Run(op);
}

int64_t Executor::RunWithPulls(OpId op) {
  OLLA_CHECK(ready(op), "executor: op is not ready");
  int64_t most = 0;
  for (OpId deferred : timings_->pulls(op)) {
    if (!done_[deferred.index()]) most = std::max(most, RunOne(deferred));
  }
  most = std::max(most, RunOne(op));
  for (OpId next : timings_->released_by(op)) {
    if (--waiting_[next.index()] == 0) {
      if (timings_->of(next) == Timing::kAsap) {
        asap_ready_.push_back(next);
      } else if (track_ready_) {
        newly_ready_.push_back(next);
      }
    }
  }
  return most;
}

void Executor::RunReadyAsap(int64_t& most) {
  while (!asap_ready_.empty()) {
    const auto lowest = std::min_element(asap_ready_.begin(), asap_ready_.end());
    const OpId next = *lowest;
    asap_ready_.erase(lowest);
    most = std::max(most, RunWithPulls(next));
  }
}

int64_t Executor::Run(OpId op) {
  int64_t most = RunWithPulls(op);
  RunReadyAsap(most);
  return most;
}

void Executor::UndoTo(int32_t steps) {
  while (order_.size() > steps) {
    const OpId op = order_.ops.back();
    order_.ops.pop_back();
    memory_.Undo(op, trail_.back());
    trail_.pop_back();
    done_[op.index()] = false;
    if (timings_->of(op) == Timing::kDeferred) continue;
    for (OpId next : timings_->released_by(op)) ++waiting_[next.index()];
  }
}

std::vector<OpId> Executor::TakeNewlyReady() {
  std::vector<OpId> ready;
  ready.swap(newly_ready_);
  return ready;
}

Order FollowRules(const MemoryModel& model, const Timings& timings, const Order& order) {
  Executor executor(model, timings);
  for (OpId op : order.ops) {
    if (timings.free(op) && !executor.done(op)) executor.Run(op);
  }
  OLLA_CHECK(executor.finished(), "FollowRules: the order does not cover the graph");
  return executor.TakeOrder();
}

}  // namespace olla
