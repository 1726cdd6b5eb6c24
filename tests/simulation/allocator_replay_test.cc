#include "olla/simulation/allocator_replay.h"

#include <gtest/gtest.h>

#include "graph_builder.h"

namespace olla {
namespace {

using testing::kMiB;

AllocatorReplay ReplayEager(const Graph& graph) {
  const Order order = EagerOrder(graph);
  return ReplayCachingAllocator(graph, order, ComputeLifetimes(graph, order));
}

// Worked by hand: e1, e2 and e3 each open a segment (10, 10, 20 MiB); e1 is freed after
// v1; e4 opens a 30 MiB segment; e5 reuses e1's block, split; e6 reuses e2's.
TEST(AllocatorReplayTest, Figure3ByHand) {
  const AllocatorReplay replay = ReplayEager(testing::Figure3Graph());
  EXPECT_EQ(replay.reserved_peak_bytes, 70 * kMiB);
  EXPECT_EQ(replay.segments, 4);
  EXPECT_EQ(replay.peak_step, 1);
  EXPECT_EQ(replay.allocated_at_peak_bytes, 60 * kMiB);
  EXPECT_EQ(replay.peak_allocated_bytes, 60 * kMiB);
  EXPECT_DOUBLE_EQ(replay.fragmentation(), 10.0 / 70.0);
}

TEST(AllocatorReplayTest, PersistentBuffersComeFirstAndCount) {
  testing::GraphBuilder b;
  const BufferId weight = b.Persistent(12 * kMiB);
  const BufferId x = b.Buffer(12 * kMiB);
  b.Op({x}, {weight});
  const AllocatorReplay replay = ReplayEager(b.Build());
  EXPECT_EQ(replay.reserved_peak_bytes, 24 * kMiB);
  EXPECT_EQ(replay.segments, 2);
  EXPECT_EQ(replay.peak_step, 0);
}

TEST(AllocatorReplayTest, WorkspaceIsFreedBeforeTheNextOp) {
  testing::GraphBuilder b;
  const BufferId x = b.Buffer(kMiB);
  const BufferId y = b.Buffer(kMiB);
  b.Op({x}, {}, 5 * kMiB);
  b.Op({y}, {x}, 5 * kMiB);
  b.Op({}, {y});
  const AllocatorReplay replay = ReplayEager(b.Build());
  // x and y share one small segment; both workspaces use one 20 MiB segment.
  EXPECT_EQ(replay.segments, 2);
  EXPECT_EQ(replay.reserved_peak_bytes, 22 * kMiB);
}

TEST(AllocatorReplayTest, FreesAtLastUseSoBlocksAreReused) {
  testing::GraphBuilder b;
  BufferId previous = b.Buffer(12 * kMiB);
  b.Op({previous}, {});
  for (int i = 0; i < 10; ++i) {
    const BufferId next = b.Buffer(12 * kMiB);
    b.Op({next}, {previous});
    previous = next;
  }
  const AllocatorReplay replay = ReplayEager(b.Build());
  EXPECT_EQ(replay.segments, 2);  // A chain needs two blocks, alternating.
  EXPECT_EQ(replay.reserved_peak_bytes, 24 * kMiB);
}

}  // namespace
}  // namespace olla
