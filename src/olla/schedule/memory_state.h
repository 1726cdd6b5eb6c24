// The live-bytes arithmetic of the memory model (docs/graph-format.md), in incremental
// form: run ops one at a time and know, after each, what is live and what the op needed.
//
// MemoryModel holds what never changes for a graph (sizes, user counts, which buffers
// are inputs or outputs); MemoryState is one partial execution. Running a whole order
// through a MemoryState gives exactly the peak of ComputeTimeline. Persistent buffers
// are outside the arena and ignored. Cost: Run() is O(uses of the op).
#pragma once

#include <cstdint>
#include <vector>

#include "olla/graph/graph.h"
#include "olla/graph/order.h"

namespace olla {

class MemoryModel {
 public:
  explicit MemoryModel(const Graph& graph);

  const Graph& graph() const { return *graph_; }
  // Bytes of the buffers op allocates (persistent excluded).
  int64_t allocated_bytes(OpId op) const { return allocated_bytes_[op.index()]; }
  // Non-persistent graph inputs: live from before the first op.
  int64_t input_bytes() const { return input_bytes_; }
  // Ops whose run can end a buffer's life: the producer and every user, once each.
  int32_t holders(BufferId b) const { return holders_[b.index()]; }
  bool tracked(BufferId b) const { return holders_[b.index()] >= 0; }
  // The distinct tracked buffers op touches (allocates or uses).
  const std::vector<BufferId>& touched(OpId op) const { return touched_[op.index()]; }
  // Inputs that no op uses: live during the first step only.
  const std::vector<BufferId>& unused_inputs() const { return unused_inputs_; }

 private:
  const Graph* graph_;
  std::vector<int64_t> allocated_bytes_;
  std::vector<int32_t> holders_;  // -1 for untracked (persistent) buffers.
  std::vector<std::vector<BufferId>> touched_;
  std::vector<BufferId> unused_inputs_;
  int64_t input_bytes_ = 0;
};

class MemoryState {
 public:
  explicit MemoryState(const MemoryModel& model);

  // Runs op (its predecessors must have run) and returns the bytes live while it runs:
  // everything live before, its outputs and its workspace.
  int64_t Run(OpId op);
  // What Undo needs to take a Run back.
  struct Saved {
    int64_t live_bytes;
    int64_t peak_bytes;
  };
  Saved Save() const { return {live_bytes_, peak_bytes_}; }
  // Takes back the last Run(op), given the Save() from just before it.
  void Undo(OpId op, const Saved& saved);
  // The bytes Run(op) would return, without running it.
  int64_t BytesDuring(OpId op) const {
    return live_bytes_ + model_->allocated_bytes(op) + model_->graph().op(op).workspace;
  }
  // The bytes op would free: tracked buffers it touches whose last holder it is.
  int64_t BytesFreedBy(OpId op) const;

  int64_t live_bytes() const { return live_bytes_; }
  int64_t peak_bytes() const { return peak_bytes_; }
  int32_t steps() const { return steps_; }
  // Holders of b that have not run yet.
  int32_t remaining_holders(BufferId b) const { return remaining_[b.index()]; }
  // The buffers whose remaining holders dropped to one since the last call: the ops
  // that would free them now free more (list schedulers re-rank them).
  std::vector<BufferId> TakeBuffersWithOneHolderLeft();

 private:
  void Release(BufferId b);

  const MemoryModel* model_;
  std::vector<int32_t> remaining_;
  std::vector<BufferId> one_holder_left_;
  int64_t live_bytes_ = 0;
  int64_t peak_bytes_ = 0;
  int32_t steps_ = 0;
};

// The peak live bytes of a whole valid order.
int64_t PeakOf(const MemoryModel& model, const Order& order);

}  // namespace olla
