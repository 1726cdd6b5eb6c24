#include "olla/schedule/executor.h"

#include <algorithm>

#include "olla/core/check.h"

namespace olla {

std::vector<bool> AsapOps(const MemoryModel& model, const ScheduleRules& rules) {
  const Graph& graph = model.graph();
  std::vector<bool> asap(static_cast<size_t>(graph.num_ops()), false);
  for (int32_t i = 0; i < graph.num_ops(); ++i) {
    const OpId op(i);
    const bool zero_cost = model.allocated_bytes(op) == 0 && graph.op(op).workspace == 0;
    asap[op.index()] = (rules.zero_cost_ops_asap && zero_cost) ||
                       (rules.updates_asap && graph.op(op).phase == Phase::kOptimizer);
  }
  return asap;
}

Executor::Executor(const MemoryModel& model, const std::vector<bool>& asap)
    : model_(&model),
      asap_(&asap),
      memory_(model),
      waiting_(static_cast<size_t>(model.graph().num_ops())),
      done_(static_cast<size_t>(model.graph().num_ops()), false) {
  const Graph& graph = model.graph();
  order_.ops.reserve(static_cast<size_t>(graph.num_ops()));
  for (int32_t i = 0; i < graph.num_ops(); ++i) {
    const OpId op(i);
    waiting_[op.index()] = static_cast<int32_t>(graph.predecessors(op).size());
    if (waiting_[op.index()] == 0) {
      (asap[op.index()] ? asap_ready_ : newly_ready_).push_back(op);
    }
  }
  while (!asap_ready_.empty()) {
    const OpId next = *std::min_element(asap_ready_.begin(), asap_ready_.end());
    std::erase(asap_ready_, next);
    RunOne(next);
  }
}

int64_t Executor::RunOne(OpId op) {
  OLLA_CHECK(ready(op), "executor: op is not ready");
  done_[op.index()] = true;
  const int64_t during = memory_.Run(op);
  order_.ops.push_back(op);
  for (OpId next : model_->graph().successors(op)) {
    if (--waiting_[next.index()] == 0) {
      ((*asap_)[next.index()] ? asap_ready_ : newly_ready_).push_back(next);
    }
  }
  return during;
}

int64_t Executor::Run(OpId op) {
  int64_t most = RunOne(op);
  while (!asap_ready_.empty()) {
    const auto lowest = std::min_element(asap_ready_.begin(), asap_ready_.end());
    const OpId next = *lowest;
    asap_ready_.erase(lowest);
    most = std::max(most, RunOne(next));
  }
  return most;
}

std::vector<OpId> Executor::TakeNewlyReady() {
  std::vector<OpId> ready;
  ready.swap(newly_ready_);
  return ready;
}

Order RunAsapEarly(const MemoryModel& model, const std::vector<bool>& asap,
                   const Order& order) {
  Executor executor(model, asap);
  for (OpId op : order.ops) {
    if (!executor.done(op)) executor.Run(op);
  }
  return executor.TakeOrder();
}

}  // namespace olla
