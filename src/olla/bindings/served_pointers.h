// ServedPointers: which arena handed out each live pointer, for the deleters of the
// DataPtrs olla's allocators return. A deleter is a plain function, and a tensor may
// outlive the installation of its allocator (and the step object that made the arena),
// so the table keeps each arena alive until its last pointer is freed. Never destroyed:
// tensors may be freed during the interpreter's exit.
#pragma once

#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "olla/runtime/planned_arena.h"

namespace olla {

class ServedPointers {
 public:
  static ServedPointers& Get() {
    static ServedPointers* table = new ServedPointers();
    return *table;
  }
  void Add(void* pointer, std::shared_ptr<PlannedArena> arena) {
    std::lock_guard<std::mutex> lock(mutex_);
    owner_[pointer] = std::move(arena);
  }
  std::shared_ptr<PlannedArena> Find(void* pointer) const {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = owner_.find(pointer);
    return found == owner_.end() ? nullptr : found->second;
  }
  std::shared_ptr<PlannedArena> Take(void* pointer) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto found = owner_.find(pointer);
    if (found == owner_.end()) return nullptr;
    std::shared_ptr<PlannedArena> arena = std::move(found->second);
    owner_.erase(found);
    return arena;
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_map<void*, std::shared_ptr<PlannedArena>> owner_;
};

}  // namespace olla
