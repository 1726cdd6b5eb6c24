#include "olla/schedule/memory_state.h"

#include <algorithm>

namespace olla {

MemoryModel::MemoryModel(const Graph& graph)
    : graph_(&graph),
      allocated_bytes_(static_cast<size_t>(graph.num_ops()), 0),
      holders_(static_cast<size_t>(graph.num_buffers()), -1),
      touched_(static_cast<size_t>(graph.num_ops())) {
  for (int32_t i = 0; i < graph.num_buffers(); ++i) {
    const BufferId b(i);
    const Buffer& buffer = graph.buffer(b);
    if (buffer.persistent) continue;
    const OpId producer = graph.producer(b);
    int32_t holders = static_cast<int32_t>(graph.users(b).size());
    if (producer.valid()) {
      allocated_bytes_[producer.index()] += buffer.size;
      touched_[producer.index()].push_back(b);
      // The producer holds the buffer while it runs, even when nothing uses it.
      if (std::find(graph.users(b).begin(), graph.users(b).end(), producer) ==
          graph.users(b).end()) {
        ++holders;
      }
    } else {
      input_bytes_ += buffer.size;
      if (holders == 0) unused_inputs_.push_back(b);
    }
    // Outputs live to the end: no run releases them.
    holders_[b.index()] = buffer.output ? graph.num_ops() + 1 : holders;
    for (OpId user : graph.users(b)) {
      if (user != producer) touched_[user.index()].push_back(b);
    }
  }
}

MemoryState::MemoryState(const MemoryModel& model)
    : model_(&model),
      remaining_(static_cast<size_t>(model.graph().num_buffers())),
      live_bytes_(model.input_bytes()) {
  for (int32_t i = 0; i < model.graph().num_buffers(); ++i)
    remaining_[static_cast<size_t>(i)] = model.holders(BufferId(i));
}

void MemoryState::Release(BufferId b) {
  const int32_t left = --remaining_[b.index()];
  if (left == 0) live_bytes_ -= model_->graph().buffer(b).size;
  if (left == 1) one_holder_left_.push_back(b);
}

std::vector<BufferId> MemoryState::TakeBuffersWithOneHolderLeft() {
  std::vector<BufferId> buffers;
  buffers.swap(one_holder_left_);
  return buffers;
}

int64_t MemoryState::Run(OpId op) {
  const int64_t during = BytesDuring(op);
  peak_bytes_ = steps_ == 0 ? during : std::max(peak_bytes_, during);
  live_bytes_ += model_->allocated_bytes(op);
  for (BufferId b : model_->touched(op)) Release(b);
  if (steps_ == 0) {
    // Unused inputs were live for the first step only.
    for (BufferId b : model_->unused_inputs()) {
      if (remaining_[b.index()] == 0 && !model_->graph().buffer(b).output)
        live_bytes_ -= model_->graph().buffer(b).size;
    }
  }
  ++steps_;
  return during;
}

void MemoryState::Undo(OpId op, const Saved& saved) {
  for (BufferId b : model_->touched(op)) ++remaining_[b.index()];
  live_bytes_ = saved.live_bytes;
  peak_bytes_ = saved.peak_bytes;
  --steps_;
  one_holder_left_.clear();
}

int64_t MemoryState::BytesFreedBy(OpId op) const {
  int64_t freed = 0;
  for (BufferId b : model_->touched(op)) {
    if (remaining_[b.index()] == 1) freed += model_->graph().buffer(b).size;
  }
  return freed;
}

int64_t PeakOf(const MemoryModel& model, const Order& order) {
  MemoryState state(model);
  for (OpId op : order.ops) state.Run(op);
  return state.peak_bytes();
}

}  // namespace olla
