#include "olla/simulation/caching_allocator.h"

#include <algorithm>

#include "olla/core/check.h"

namespace olla {

int64_t CachingAllocatorModel::RoundSize(int64_t size) {
  if (size < kMinBlockSize) return kMinBlockSize;
  return kMinBlockSize * ((size + kMinBlockSize - 1) / kMinBlockSize);
}

int64_t CachingAllocatorModel::SegmentSize(int64_t rounded_size) {
  if (rounded_size <= kSmallSize) return kSmallBuffer;
  if (rounded_size < kMinLargeAlloc) return kLargeBuffer;
  return kRoundLarge * ((rounded_size + kRoundLarge - 1) / kRoundLarge);
}

CachingAllocatorModel::Handle CachingAllocatorModel::NewBlock(const Block& block) {
  if (!recycled_.empty()) {
    const Handle handle = recycled_.back();
    recycled_.pop_back();
    blocks_[static_cast<size_t>(handle)] = block;
    return handle;
  }
  blocks_.push_back(block);
  return static_cast<Handle>(blocks_.size() - 1);
}

void CachingAllocatorModel::InsertFree(Handle handle) {
  Block& block = blocks_[static_cast<size_t>(handle)];
  block.free_entry =
      PoolOf(block.small_pool).emplace(block.size, block.address, handle).first;
}

void CachingAllocatorModel::EraseFree(Handle handle) {
  const Block& block = blocks_[static_cast<size_t>(handle)];
  OLLA_CHECK(!block.allocated && std::get<2>(*block.free_entry) == handle,
             "free block missing from its pool");
  PoolOf(block.small_pool).erase(block.free_entry);
}

CachingAllocatorModel::Handle CachingAllocatorModel::Allocate(int64_t size) {
  OLLA_CHECK(size >= 0, "negative allocation");
  if (size == 0) return kNoBlock;
  const int64_t rounded = RoundSize(size);
  const bool small_pool = rounded <= kSmallSize;
  Pool& pool = PoolOf(small_pool);

  Handle handle = kNoBlock;
  auto fit = pool.lower_bound({rounded, INT64_MIN, INT32_MIN});
  if (fit != pool.end()) {
    handle = std::get<2>(*fit);
    pool.erase(fit);
  } else {
    const int64_t segment = SegmentSize(rounded);
    handle = NewBlock(
        {next_segment_address_, segment, small_pool, false, kNoBlock, kNoBlock, {}});
    next_segment_address_ += segment;
    reserved_ += segment;
    ++num_segments_;
  }

  Block& block = blocks_[static_cast<size_t>(handle)];
  const int64_t remaining = block.size - rounded;
  const bool split = small_pool ? remaining >= kMinBlockSize : remaining > kSmallSize;
  if (split) {
    const Block rest{
        block.address + rounded, remaining, small_pool, false, handle, block.next, {}};
    const Handle rest_handle = NewBlock(rest);  // May reallocate blocks_.
    Block& head = blocks_[static_cast<size_t>(handle)];
    if (head.next != kNoBlock) blocks_[static_cast<size_t>(head.next)].prev = rest_handle;
    head.next = rest_handle;
    head.size = rounded;
    InsertFree(rest_handle);
  }
  Block& allocated = blocks_[static_cast<size_t>(handle)];
  allocated.allocated = true;
  allocated_ += allocated.size;
  peak_allocated_ = std::max(peak_allocated_, allocated_);
  if (reserved_ > peak_reserved_) {
    peak_reserved_ = reserved_;
    allocated_at_peak_reserved_ = allocated_;
  }
  return handle;
}

void CachingAllocatorModel::Free(Handle handle) {
  if (handle == kNoBlock) return;
  Block& block = blocks_[static_cast<size_t>(handle)];
  OLLA_CHECK(block.allocated, "double free in the caching allocator model");
  block.allocated = false;
  allocated_ -= block.size;
  // Merge with free neighbours in the segment; the merged block keeps `handle`.
  for (Handle neighbour : {block.prev, block.next}) {
    if (neighbour == kNoBlock || blocks_[static_cast<size_t>(neighbour)].allocated)
      continue;
    EraseFree(neighbour);
    Block& self = blocks_[static_cast<size_t>(handle)];
    const Block other = blocks_[static_cast<size_t>(neighbour)];
    if (other.next == handle) {  // `other` lies before `self`.
      self.address = other.address;
      self.prev = other.prev;
      if (self.prev != kNoBlock) blocks_[static_cast<size_t>(self.prev)].next = handle;
    } else {
      self.next = other.next;
      if (self.next != kNoBlock) blocks_[static_cast<size_t>(self.next)].prev = handle;
    }
    self.size += other.size;
    recycled_.push_back(neighbour);
  }
  InsertFree(handle);
}

}  // namespace olla
