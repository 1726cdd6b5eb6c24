// Executor: builds an order op by op, keeping the memory state and the ready set. The
// schedulers only choose among "free" ops; two other kinds run by rule (Timings):
//
// - As soon as ready: ops that allocate no bytes and need no workspace. Running one
//   earlier never raises a peak: it adds nothing and can only end lifetimes sooner.
//   With ScheduleRules::updates_asap, optimizer-phase ops too: each parameter update
//   runs as soon as its gradient is ready, as OLLA does (a restriction of the orders).
// - As late as possible: ops with no workspace that can free nothing, because every
//   buffer they read is also read by one of their descendants (or is an output), whose
//   outputs all outlive them, and that have successors, none of them ASAP (which would
//   pull them in earlier than anywhere they were). Running one later, right
//   before its first successor, never raises a peak: its outputs live less, and while
//   it runs no more is live than while that successor runs. (Backward ops that
//   recompute from saved activations, such as the sigmoid of a SiLU's input, are of
//   this kind.)
//
// Without the updates rule, following the other two loses nothing: some best order
// follows them. With it, they interact (an op run earlier can make an update ready
// earlier), so the orders allowed are defined as those that follow all three rules,
// and every method, the eager baseline included, searches exactly that space.
//
// The executor runs ASAP ops the moment they are ready (lowest id first) and pulls
// deferred ops in just before the first op that needs them. Run() and UndoTo() let a
// search walk the orders.
#pragma once

#include <cstdint>
#include <vector>

#include "olla/graph/order.h"
#include "olla/schedule/memory_state.h"

namespace olla {

struct ScheduleRules {
  bool updates_asap = true;  // Optimizer ops run as soon as they are ready.
  bool timing_rules = true;  // The optimality-preserving ASAP and deferral rules.
};

enum class Timing : uint8_t { kFree, kAsap, kDeferred };

// How each op is timed under the rules, and the dependencies as the free and ASAP ops
// see them: deferred ops are looked through (they run when needed).
class Timings {
 public:
  Timings(const MemoryModel& model, const ScheduleRules& rules);

  Timing of(OpId op) const { return timing_[op.index()]; }
  bool free(OpId op) const { return of(op) == Timing::kFree; }
  // For a non-deferred op: the non-deferred ops that must run before it (directly, or
  // through deferred ops), and the deferred ops it pulls in (in id order).
  const std::vector<OpId>& waits_for(OpId op) const { return waits_for_[op.index()]; }
  const std::vector<OpId>& pulls(OpId op) const { return pulls_[op.index()]; }
  // The non-deferred ops that wait for op.
  const std::vector<OpId>& released_by(OpId op) const { return released_by_[op.index()]; }

 private:
  std::vector<Timing> timing_;
  std::vector<std::vector<OpId>> waits_for_;
  std::vector<std::vector<OpId>> pulls_;
  std::vector<std::vector<OpId>> released_by_;
};

class Executor {
 public:
  // Runs the ASAP ops that are ready from the start.
  Executor(const MemoryModel& model, const Timings& timings);

  // Runs a ready free op (after the deferred ops it pulls in), then every ASAP op that
  // becomes ready. Returns the most bytes live while any of them ran.
  int64_t Run(OpId op);
  // Undoes every run since order().size() was `steps`.
  void UndoTo(int32_t steps);

  bool done(OpId op) const { return done_[op.index()]; }
  bool ready(OpId op) const { return !done_[op.index()] && waiting_[op.index()] == 0; }
  bool finished() const { return order_.size() == model_->graph().num_ops(); }
  // Non-deferred ops the op still waits for.
  int32_t waiting(OpId op) const { return waiting_[op.index()]; }

  // The free ops that became ready since the last call (in the order they did). Only
  // kept when `track_ready` (list schedulers); searches scan instead.
  std::vector<OpId> TakeNewlyReady();
  void set_track_ready(bool track) { track_ready_ = track; }

  const MemoryState& memory() const { return memory_; }
  MemoryState& memory() { return memory_; }
  const Order& order() const { return order_; }
  Order TakeOrder() { return std::move(order_); }

 private:
  int64_t RunWithPulls(OpId op);
  int64_t RunOne(OpId op);
  void RunReadyAsap(int64_t& most);

  const MemoryModel* model_;
  const Timings* timings_;
  MemoryState memory_;
  std::vector<int32_t> waiting_;
  std::vector<bool> done_;
  bool track_ready_ = true;
  std::vector<OpId> newly_ready_;
  std::vector<OpId> asap_ready_;
  std::vector<MemoryState::Saved> trail_;  // One per op in order_, to undo it.
  Order order_;
};

// Replays `order` (valid) through an Executor: its free ops in the same order, the
// others where the rules put them.
Order FollowRules(const MemoryModel& model, const Timings& timings, const Order& order);

}  // namespace olla
