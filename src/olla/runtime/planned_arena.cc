#include "olla/runtime/planned_arena.h"

#include <algorithm>
#include <iterator>
#include <new>
#include <utility>

namespace olla {

PlannedArena::PlannedArena(int64_t arena_bytes, std::unique_ptr<ArenaMemory> memory)
    : memory_(std::move(memory)), arena_bytes_(arena_bytes) {
  if (arena_bytes < 0) throw std::bad_alloc();
  if (arena_bytes > 0)
    base_ = static_cast<char*>(memory_->Allocate(static_cast<size_t>(arena_bytes)));
  stats_.arena_bytes = arena_bytes;
}

PlannedArena::~PlannedArena() {
  for (const auto& [pointer, bytes] : fall_through_live_) memory_->Free(pointer);
  if (base_ != nullptr) memory_->Free(base_);
}

void PlannedArena::Announce(std::vector<PlannedSlot> slots) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = 0; i < announced_.size(); ++i) {
    if (!claimed_[i]) ++stats_.unclaimed;
  }
  announced_ = std::move(slots);
  claimed_.assign(announced_.size(), false);
  window_.clear();
  announcer_requests_ = 0;
  announcer_ = std::this_thread::get_id();
}

void PlannedArena::SetSchedule(std::vector<std::vector<PlannedSlot>> schedule) {
  std::lock_guard<std::mutex> lock(mutex_);
  schedule_ = std::move(schedule);
}

void PlannedArena::AnnounceScheduled(size_t position) {
  std::vector<PlannedSlot> slots;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    slots = schedule_.at(position);
  }
  Announce(std::move(slots));
}

int64_t PlannedArena::FindSlot(size_t bytes, int64_t request) const {
  // The slot announced for this very request, else the first of its size announced
  // for any request.
  int64_t any_request = -1;
  for (size_t i = 0; i < announced_.size(); ++i) {
    const PlannedSlot& slot = announced_[i];
    if (claimed_[i] || slot.size != static_cast<int64_t>(bytes)) continue;
    if (slot.request == request) return static_cast<int64_t>(i);
    if (slot.request < 0 && any_request < 0) any_request = static_cast<int64_t>(i);
  }
  return any_request;
}

void* PlannedArena::ServePlanned(size_t bytes, int64_t request) {
  const int64_t found = FindSlot(bytes, request);
  if (found < 0) return nullptr;
  const PlannedSlot& slot = announced_[found];
  claimed_[found] = true;
  const int64_t begin = slot.offset;
  const int64_t end = slot.offset + slot.size;
  if (begin < 0 || end > arena_bytes_) {
    ++stats_.blocked;
    return nullptr;
  }
  if (Overlaps(begin, end)) {
    ++stats_.blocked;
    return nullptr;
  }
  live_ranges_.emplace(begin, end);
  ++stats_.served;
  stats_.served_bytes += slot.size;
  return base_ + begin;
}

bool PlannedArena::Overlaps(int64_t begin, int64_t end) {
  while (true) {
    // The first live range ending after `begin` is the only one that can overlap.
    auto next = live_ranges_.upper_bound(begin);
    if (next != live_ranges_.begin()) {
      auto below = std::prev(next);
      if (below->second > begin) next = below;
    }
    if (next == live_ranges_.end() || next->first >= end) return false;
    const auto fenced = fenced_.find(next->first);
    if (fenced == fenced_.end() || !fenced->second->Passed()) return true;
    fenced_.erase(fenced);
    live_ranges_.erase(next);
  }
}

void* PlannedArena::Allocate(size_t bytes, bool on_step_stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  // Numbered among the announcing thread's requests only: a worker thread's requests
  // interleave with them differently in every run.
  const bool other_thread = std::this_thread::get_id() != announcer_;
  const int64_t request = other_thread ? -1 : announcer_requests_++;
  window_.push_back({static_cast<int64_t>(bytes), 0, -1, other_thread});
  if (bytes == 0) return nullptr;
  if (on_step_stream) {
    if (void* planned = ServePlanned(bytes, request)) {
      window_.back().address = reinterpret_cast<uintptr_t>(planned);
      return planned;
    }
  }
  void* pointer = memory_->Allocate(bytes);
  window_.back().address = reinterpret_cast<uintptr_t>(pointer);
  fall_through_live_.emplace(pointer, static_cast<int64_t>(bytes));
  if (!on_step_stream) ++stats_.other_stream;
  ++stats_.fell_through;
  stats_.fell_through_bytes += static_cast<int64_t>(bytes);
  stats_.fall_through_live_bytes += static_cast<int64_t>(bytes);
  stats_.fall_through_peak_bytes =
      std::max(stats_.fall_through_peak_bytes, stats_.fall_through_live_bytes);
  return pointer;
}

bool PlannedArena::InArena(const void* pointer) const {
  const char* p = static_cast<const char*>(pointer);
  return base_ != nullptr && p >= base_ && p < base_ + arena_bytes_;
}

bool PlannedArena::Free(void* pointer) { return FreeAfter(pointer, nullptr); }

bool PlannedArena::FreeAfter(void* pointer, std::unique_ptr<Fence> fence) {
  if (pointer == nullptr) return true;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto address = reinterpret_cast<uintptr_t>(pointer);
  for (auto r = window_.rbegin(); r != window_.rend(); ++r) {
    if (r->address == address && r->freed_at < 0) {
      r->freed_at = static_cast<int64_t>(window_.size());
      break;
    }
  }
  if (InArena(pointer)) {
    const int64_t offset = static_cast<char*>(pointer) - base_;
    if (live_ranges_.count(offset) == 0 || fenced_.count(offset) == 1) return false;
    if (fence == nullptr || fence->Passed()) {
      live_ranges_.erase(offset);
    } else {
      fenced_.emplace(offset, std::move(fence));
      ++stats_.fenced;
    }
    return true;
  }
  const auto found = fall_through_live_.find(pointer);
  if (found == fall_through_live_.end()) return false;
  stats_.fall_through_live_bytes -= found->second;
  fall_through_live_.erase(found);
  memory_->Free(pointer);
  return true;
}

ArenaStats PlannedArena::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

std::vector<ArenaRequest> PlannedArena::window() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return window_;
}

void PlannedArena::ResetStats() {
  std::lock_guard<std::mutex> lock(mutex_);
  ArenaStats fresh;
  fresh.arena_bytes = arena_bytes_;
  fresh.fall_through_live_bytes = stats_.fall_through_live_bytes;
  fresh.fall_through_peak_bytes = stats_.fall_through_live_bytes;
  stats_ = fresh;
}

int64_t PlannedArena::live_allocations() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int64_t>(live_ranges_.size() - fenced_.size() +
                              fall_through_live_.size());
}

}  // namespace olla
