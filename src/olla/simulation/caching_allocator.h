// CachingAllocatorModel: a model of PyTorch's CUDA caching allocator, to measure what
// an order costs when PyTorch, not olla, places the tensors.
//
// The rules follow c10/cuda/CUDACachingAllocator.cpp (PyTorch 1.13, the version Debian
// ships; defaults: no max_split_size, no power-of-two rounding, one stream):
// - round_size: requests are rounded up to a multiple of 512 bytes (kMinBlockSize),
//   at least 512.
// - get_pool: rounded requests up to 1 MiB (kSmallSize) use the small pool, larger
//   ones the large pool; the pools never share blocks.
// - get_free_block: best fit, the smallest free block of the pool that is large enough,
//   ties to the lowest address (the pool is ordered by size, then address).
// - get_allocation_size: with no fitting block, a new segment ("cudaMalloc") of 2 MiB
//   (kSmallBuffer) for small requests, 20 MiB (kLargeBuffer) for requests under 10 MiB
//   (kMinLargeAlloc), else the request rounded up to 2 MiB (kRoundLarge).
// - should_split: the block is split when the remainder is at least 512 bytes (small
//   pool) or more than 1 MiB (large pool); otherwise the whole block is handed out and
//   counts as allocated.
// - free_block / try_merge_blocks: a freed block merges with free neighbours of its
//   own segment.
// - Segments are never returned (no empty_cache, no out-of-memory retry): reserved
//   bytes only grow.
// Zero-byte requests allocate nothing, as in PyTorch. Deterministic: segment addresses
// are assigned in increasing order. Cost: O(log blocks) per call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <tuple>
#include <vector>

namespace olla {

class CachingAllocatorModel {
 public:
  static constexpr int64_t kMinBlockSize = 512;
  static constexpr int64_t kSmallSize = 1 << 20;
  static constexpr int64_t kSmallBuffer = 2 << 20;
  static constexpr int64_t kLargeBuffer = 20 << 20;
  static constexpr int64_t kMinLargeAlloc = 10 << 20;
  static constexpr int64_t kRoundLarge = 2 << 20;

  using Handle = int32_t;
  static constexpr Handle kNoBlock = -1;

  static int64_t RoundSize(int64_t size);
  static int64_t SegmentSize(int64_t rounded_size);

  // Allocates `size` bytes; returns kNoBlock for size 0.
  Handle Allocate(int64_t size);
  // Frees a handle returned by Allocate (kNoBlock is ignored).
  void Free(Handle handle);

  int64_t address(Handle handle) const {
    return blocks_[static_cast<size_t>(handle)].address;
  }
  int64_t block_size(Handle handle) const {
    return blocks_[static_cast<size_t>(handle)].size;
  }

  int64_t reserved_bytes() const { return reserved_; }
  int64_t allocated_bytes() const { return allocated_; }
  int64_t peak_reserved_bytes() const { return peak_reserved_; }
  // Allocated bytes at the moment reserved bytes first reached their peak.
  int64_t allocated_at_peak_reserved() const { return allocated_at_peak_reserved_; }
  int64_t peak_allocated_bytes() const { return peak_allocated_; }
  int32_t num_segments() const { return num_segments_; }

 private:
  // Free blocks ordered by (size, address), as PyTorch's BlockComparator.
  using FreeKey = std::tuple<int64_t, int64_t, Handle>;
  using Pool = std::set<FreeKey>;
  struct Block {
    int64_t address = 0;
    int64_t size = 0;
    bool small_pool = false;
    bool allocated = false;
    Handle prev = kNoBlock;  // Neighbours within the same segment.
    Handle next = kNoBlock;
    // Its entry in its pool while free, so merging erases it without a search.
    Pool::iterator free_entry;
  };

  Pool& PoolOf(bool small_pool) { return small_pool ? small_free_ : large_free_; }
  void InsertFree(Handle handle);
  void EraseFree(Handle handle);
  Handle NewBlock(const Block& block);

  std::vector<Block> blocks_;
  std::vector<Handle> recycled_;  // Handles of blocks removed by merging.
  Pool small_free_;
  Pool large_free_;
  int64_t next_segment_address_ = 0;
  int64_t reserved_ = 0;
  int64_t allocated_ = 0;
  int64_t peak_reserved_ = 0;
  int64_t allocated_at_peak_reserved_ = 0;
  int64_t peak_allocated_ = 0;
  int32_t num_segments_ = 0;
};

}  // namespace olla
