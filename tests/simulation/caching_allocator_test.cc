#include "olla/simulation/caching_allocator.h"

#include <gtest/gtest.h>

namespace olla {
namespace {

constexpr int64_t kKiB = 1 << 10;
constexpr int64_t kMiB = 1 << 20;
using Model = CachingAllocatorModel;

TEST(CachingAllocatorTest, RoundsRequestsTo512Bytes) {
  EXPECT_EQ(Model::RoundSize(1), 512);
  EXPECT_EQ(Model::RoundSize(512), 512);
  EXPECT_EQ(Model::RoundSize(513), 1024);
  EXPECT_EQ(Model::RoundSize(3 * kMiB + 1), 3 * kMiB + 512);
}

TEST(CachingAllocatorTest, SegmentSizesFollowTheThreePools) {
  EXPECT_EQ(Model::SegmentSize(512), 2 * kMiB);          // Small: 2 MiB.
  EXPECT_EQ(Model::SegmentSize(kMiB), 2 * kMiB);         // 1 MiB is still small.
  EXPECT_EQ(Model::SegmentSize(kMiB + 512), 20 * kMiB);  // Large, under 10 MiB: 20 MiB.
  EXPECT_EQ(Model::SegmentSize(10 * kMiB - 512), 20 * kMiB);
  EXPECT_EQ(Model::SegmentSize(10 * kMiB), 10 * kMiB);  // From 10 MiB: rounded to 2 MiB.
  EXPECT_EQ(Model::SegmentSize(11 * kMiB), 12 * kMiB);
}

TEST(CachingAllocatorTest, ZeroBytesAllocateNothing) {
  Model model;
  EXPECT_EQ(model.Allocate(0), Model::kNoBlock);
  model.Free(Model::kNoBlock);
  EXPECT_EQ(model.reserved_bytes(), 0);
}

TEST(CachingAllocatorTest, SmallRequestsShareA2MiBSegment) {
  Model model;
  const auto a = model.Allocate(1000);
  const auto b = model.Allocate(1000);
  EXPECT_EQ(model.reserved_bytes(), 2 * kMiB);
  EXPECT_EQ(model.num_segments(), 1);
  EXPECT_EQ(model.address(a), 0);
  EXPECT_EQ(model.address(b), 1024);  // Carved from the split remainder.
  EXPECT_EQ(model.allocated_bytes(), 2048);
}

TEST(CachingAllocatorTest, SmallAndLargePoolsNeverShare) {
  Model model;
  const auto small = model.Allocate(kMiB);  // 2 MiB segment, 1 MiB left free.
  model.Free(small);                        // The whole 2 MiB is free again...
  model.Allocate(kMiB + 512);               // ...but a large request opens a segment.
  EXPECT_EQ(model.num_segments(), 2);
  EXPECT_EQ(model.reserved_bytes(), 22 * kMiB);
}

TEST(CachingAllocatorTest, LargeBlocksSplitOnlyAboveOneMiBOfRemainder) {
  Model model;
  const auto whole = model.Allocate(19 * kMiB);  // 20 MiB segment; 1 MiB left: no split.
  EXPECT_EQ(model.block_size(whole), 20 * kMiB);
  EXPECT_EQ(model.allocated_bytes(), 20 * kMiB);
  Model other;
  const auto split = other.Allocate(9 * kMiB);  // 20 MiB segment; 11 MiB left: split.
  EXPECT_EQ(other.block_size(split), 9 * kMiB);
  const auto rest = other.Allocate(11 * kMiB);
  EXPECT_EQ(other.address(rest), 9 * kMiB);
  EXPECT_EQ(other.num_segments(), 1);
}

TEST(CachingAllocatorTest, SmallBlocksSplitFrom512BytesOfRemainder) {
  Model model;
  model.Allocate(kMiB);                       // 2 MiB segment; 1 MiB left: split.
  const auto a = model.Allocate(kMiB - 512);  // Leaves exactly 512 bytes: split.
  EXPECT_EQ(model.block_size(a), kMiB - 512);
  const auto b = model.Allocate(100);
  EXPECT_EQ(model.address(b), 2 * kMiB - 512);
  EXPECT_EQ(model.num_segments(), 1);
}

TEST(CachingAllocatorTest, BestFitTakesTheSmallestFreeBlock) {
  Model model;
  // a, b and c fill one 20 MiB segment exactly: 8 + 4 + 8 MiB.
  const auto a = model.Allocate(8 * kMiB);
  const auto b = model.Allocate(4 * kMiB);
  const auto c = model.Allocate(8 * kMiB);  // Fits the 8 MiB left after a and b.
  EXPECT_EQ(model.num_segments(), 1);
  model.Free(b);                            // The only free block: 4 MiB at 8 MiB.
  const auto d = model.Allocate(9 * kMiB);  // Needs a new segment (11 MiB left there).
  EXPECT_EQ(model.num_segments(), 2);
  const auto e = model.Allocate(3 * kMiB);  // 4 MiB and 11 MiB blocks fit: takes 4 MiB.
  EXPECT_EQ(model.address(e), 8 * kMiB);
  EXPECT_EQ(model.block_size(e), 4 * kMiB);  // 1 MiB remainder is not split off.
  (void)a;
  (void)c;
  (void)d;
}

TEST(CachingAllocatorTest, TiesGoToTheLowestAddress) {
  Model model;
  const auto a = model.Allocate(kKiB);
  const auto b = model.Allocate(kKiB);
  const auto c = model.Allocate(kKiB);
  const auto d = model.Allocate(kKiB);
  model.Free(c);
  model.Free(a);  // Free 1 KiB blocks at 0 and 2 KiB, and the segment's tail.
  EXPECT_EQ(model.address(model.Allocate(kKiB)), 0);
  EXPECT_EQ(model.address(model.Allocate(kKiB)), 2 * kKiB);
  (void)b;
  (void)d;
}

TEST(CachingAllocatorTest, FreedNeighboursMergeWithinASegment) {
  Model model;
  const auto a = model.Allocate(6 * kMiB);
  const auto b = model.Allocate(6 * kMiB);
  const auto c = model.Allocate(6 * kMiB);
  model.Free(a);
  model.Free(c);  // Merges with the 2 MiB tail.
  model.Free(b);  // Merges with both sides: the whole 20 MiB segment is one block.
  const auto whole = model.Allocate(20 * kMiB);
  EXPECT_EQ(model.address(whole), 0);
  EXPECT_EQ(model.num_segments(), 1);
}

TEST(CachingAllocatorTest, SegmentsAreKeptAndPeaksRecorded) {
  Model model;
  const auto a = model.Allocate(30 * kMiB);
  model.Free(a);
  EXPECT_EQ(model.reserved_bytes(), 30 * kMiB);  // Never returned.
  EXPECT_EQ(model.allocated_bytes(), 0);
  const auto b = model.Allocate(12 * kMiB);  // Reuses the cached block.
  const auto c = model.Allocate(12 * kMiB);  // 18 MiB left in it: fits again.
  EXPECT_EQ(model.num_segments(), 1);
  const auto d = model.Allocate(12 * kMiB);  // Now a second segment.
  EXPECT_EQ(model.peak_reserved_bytes(), 42 * kMiB);
  EXPECT_EQ(model.allocated_at_peak_reserved(), 36 * kMiB);
  EXPECT_EQ(model.peak_allocated_bytes(), 36 * kMiB);
  (void)b;
  (void)c;
  (void)d;
}

}  // namespace
}  // namespace olla
