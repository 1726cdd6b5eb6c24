// Executor: builds an order op by op, keeping the memory state and the ready set, and
// runs "as soon as ready" ops the moment they become ready.
//
// Two kinds of ops run as soon as they are ready (AsapOps):
// - ops that allocate no bytes and need no workspace. Running such an op earlier never
//   raises a peak: it adds nothing, and it can only end lifetimes sooner. So every
//   method may run them eagerly without losing optimality;
// - with ScheduleRules::updates_asap, optimizer-phase ops: each parameter update runs
//   as soon as its gradient is ready, as OLLA does. This restricts the orders searched.
// Every other op is "free": the schedulers choose among the ready free ops.
#pragma once

#include <cstdint>
#include <vector>

#include "olla/graph/order.h"
#include "olla/schedule/memory_state.h"

namespace olla {

struct ScheduleRules {
  bool updates_asap = true;        // Optimizer ops run as soon as they are ready.
  bool zero_cost_ops_asap = true;  // Ops that allocate nothing run as soon as ready.
};

// asap[op]: whether op runs as soon as it is ready under `rules`.
std::vector<bool> AsapOps(const MemoryModel& model, const ScheduleRules& rules);

class Executor {
 public:
  // Runs the ASAP ops that are ready from the start.
  Executor(const MemoryModel& model, const std::vector<bool>& asap);

  // Runs a ready free op, then every ASAP op that becomes ready (lowest id first).
  // Returns the most bytes live while any of them ran.
  int64_t Run(OpId op);
  bool done(OpId op) const { return done_[op.index()]; }
  bool ready(OpId op) const { return !done_[op.index()] && waiting_[op.index()] == 0; }
  bool finished() const { return order_.size() == model_->graph().num_ops(); }
  // Predecessors of op that have not run yet.
  int32_t waiting(OpId op) const { return waiting_[op.index()]; }

  // The free ops that became ready since the last call (in the order they did).
  std::vector<OpId> TakeNewlyReady();

  const MemoryState& memory() const { return memory_; }
  MemoryState& memory() { return memory_; }
  const Order& order() const { return order_; }
  Order TakeOrder() { return std::move(order_); }

 private:
  int64_t RunOne(OpId op);

  const MemoryModel* model_;
  const std::vector<bool>* asap_;
  MemoryState memory_;
  std::vector<int32_t> waiting_;  // Predecessors not yet run.
  std::vector<bool> done_;
  std::vector<OpId> newly_ready_;
  std::vector<OpId> asap_ready_;
  Order order_;
};

// Replays `order` (valid) through an Executor: the same order with ASAP ops moved to
// the moment they become ready.
Order RunAsapEarly(const MemoryModel& model, const std::vector<bool>& asap,
                   const Order& order);

}  // namespace olla
