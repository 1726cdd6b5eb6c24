#include "olla/runtime/planned_arena.h"

#include <cstdint>
#include <memory>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace olla {
namespace {

char* Base(void* served, int64_t offset) { return static_cast<char*>(served) - offset; }

TEST(PlannedArenaTest, ServesAnnouncedSizesAtTheirOffsets) {
  PlannedArena arena(1024);
  arena.Announce({{0, 100}, {512, 300}});
  void* b = arena.Allocate(300);  // Matched by size, not by announcement order.
  void* a = arena.Allocate(100);
  ASSERT_TRUE(arena.InArena(a));
  ASSERT_TRUE(arena.InArena(b));
  EXPECT_EQ(static_cast<char*>(b) - static_cast<char*>(a), 512);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(Base(a, 0)) % 64, 0u);
  const ArenaStats stats = arena.stats();
  EXPECT_EQ(stats.served, 2);
  EXPECT_EQ(stats.served_bytes, 400);
  EXPECT_EQ(stats.fell_through, 0);
  EXPECT_EQ(stats.peak_bytes(), 1024);
  EXPECT_TRUE(arena.Free(a));
  EXPECT_TRUE(arena.Free(b));
  EXPECT_EQ(arena.live_allocations(), 0);
}

TEST(PlannedArenaTest, UnknownSizesFallThroughAndAreCounted) {
  PlannedArena arena(256);
  arena.Announce({{0, 256}});
  void* scratch = arena.Allocate(40);
  void* planned = arena.Allocate(256);
  EXPECT_FALSE(arena.InArena(scratch));
  EXPECT_TRUE(arena.InArena(planned));
  void* again = arena.Allocate(256);  // Its slot is taken: the second one falls through.
  EXPECT_FALSE(arena.InArena(again));
  ArenaStats stats = arena.stats();
  EXPECT_EQ(stats.fell_through, 2);
  EXPECT_EQ(stats.fell_through_bytes, 296);
  EXPECT_EQ(stats.fall_through_peak_bytes, 296);
  EXPECT_TRUE(arena.Free(scratch));
  EXPECT_EQ(arena.stats().fall_through_live_bytes, 256);
  EXPECT_TRUE(arena.Free(again));
  EXPECT_TRUE(arena.Free(planned));
  EXPECT_EQ(arena.stats().fall_through_peak_bytes, 296);
}

TEST(PlannedArenaTest, NeverHandsOutBytesThatAreStillLive) {
  // The plan says the second buffer reuses the first one's bytes, but the first is
  // still alive (kept longer than planned): the second must not get them.
  PlannedArena arena(512);
  arena.Announce({{0, 512}});
  void* first = arena.Allocate(512);
  arena.Announce({{256, 128}});
  void* second = arena.Allocate(128);
  EXPECT_TRUE(arena.InArena(first));
  EXPECT_FALSE(arena.InArena(second));
  EXPECT_EQ(arena.stats().blocked, 1);
  EXPECT_TRUE(arena.Free(first));
  arena.Announce({{256, 128}});
  void* third = arena.Allocate(128);  // Free now: served.
  EXPECT_TRUE(arena.InArena(third));
  EXPECT_TRUE(arena.Free(second));
  EXPECT_TRUE(arena.Free(third));
}

TEST(PlannedArenaTest, AdjacentRangesDoNotBlockEachOther) {
  PlannedArena arena(300);
  arena.Announce({{0, 100}, {100, 100}, {200, 100}});
  void* middle = arena.Allocate(100);
  void* low = arena.Allocate(100);
  void* high = arena.Allocate(100);
  for (void* p : {middle, low, high}) EXPECT_TRUE(arena.InArena(p));
  EXPECT_EQ(arena.stats().blocked, 0);
  for (void* p : {middle, low, high}) EXPECT_TRUE(arena.Free(p));
}

TEST(PlannedArenaTest, UnclaimedAnnouncementsAreCountedAtTheNextOne) {
  PlannedArena arena(64);
  arena.Announce({{0, 64}});
  arena.Announce({});
  EXPECT_EQ(arena.stats().unclaimed, 1);
  void* late = arena.Allocate(64);  // No longer announced: falls through.
  EXPECT_FALSE(arena.InArena(late));
  EXPECT_TRUE(arena.Free(late));
}

TEST(PlannedArenaTest, AScheduledAnnouncementIsThatPositionsSlots) {
  PlannedArena arena(1024);
  arena.SetSchedule({{{0, 100}}, {{512, 100}}});
  arena.AnnounceScheduled(1);
  void* second = arena.Allocate(100);
  arena.AnnounceScheduled(0);
  void* first = arena.Allocate(100);
  EXPECT_EQ(static_cast<char*>(second) - static_cast<char*>(first), 512);
  arena.AnnounceScheduled(0);  // The schedule is kept: position 0 again.
  EXPECT_EQ(arena.stats().unclaimed, 0);
  EXPECT_THROW(arena.AnnounceScheduled(2), std::out_of_range);
  EXPECT_TRUE(arena.Free(first));
  EXPECT_TRUE(arena.Free(second));
}

TEST(PlannedArenaTest, CountingAllocatorWithoutArena) {
  PlannedArena counting(0);
  void* a = counting.Allocate(1000);
  void* b = counting.Allocate(24);
  EXPECT_TRUE(counting.Free(a));
  void* c = counting.Allocate(10);
  EXPECT_EQ(counting.stats().fall_through_peak_bytes, 1024);
  EXPECT_EQ(counting.Allocate(0), nullptr);
  EXPECT_TRUE(counting.Free(b));
  EXPECT_TRUE(counting.Free(c));
  int local = 0;
  EXPECT_FALSE(counting.Free(&local));  // Not ours: nothing happens.
  EXPECT_EQ(counting.stats().peak_bytes(), 1024);
}

TEST(PlannedArenaTest, ResetStatsStartsFromWhatIsLive) {
  PlannedArena arena(64);
  void* kept = arena.Allocate(100);
  void* gone = arena.Allocate(50);
  EXPECT_TRUE(arena.Free(gone));
  arena.ResetStats();
  ArenaStats stats = arena.stats();
  EXPECT_EQ(stats.fell_through, 0);
  EXPECT_EQ(stats.fall_through_peak_bytes, 100);
  EXPECT_EQ(stats.arena_bytes, 64);
  EXPECT_TRUE(arena.Free(kept));
}

TEST(PlannedArenaTest, OutOfRangeSlotsFallThrough) {
  PlannedArena arena(100);
  arena.Announce({{50, 100}});
  void* p = arena.Allocate(100);
  EXPECT_FALSE(arena.InArena(p));
  EXPECT_EQ(arena.stats().blocked, 1);
  EXPECT_TRUE(arena.Free(p));
}

TEST(PlannedArenaTest, AKnownRequestIndexSkipsTemporariesOfTheSameSize) {
  // A CPU convolution allocates temporaries of its output's size before the output.
  PlannedArena arena(128);
  arena.Announce({{0, 128, 2}});
  void* first = arena.Allocate(128);
  void* second = arena.Allocate(128);
  void* output = arena.Allocate(128);
  EXPECT_FALSE(arena.InArena(first));
  EXPECT_FALSE(arena.InArena(second));
  EXPECT_TRUE(arena.InArena(output));
  const std::vector<ArenaRequest> window = arena.window();
  ASSERT_EQ(window.size(), 3u);
  EXPECT_EQ(window[2].address, reinterpret_cast<uintptr_t>(output));
  EXPECT_EQ(window[0].size, 128);
  EXPECT_EQ(window[0].freed_at, -1);
  EXPECT_TRUE(arena.Free(second));
  EXPECT_EQ(arena.window()[1].freed_at, 3);  // Freed after the third request.
  for (void* p : {first, output}) EXPECT_TRUE(arena.Free(p));
}

TEST(PlannedArenaTest, ARequestIndexIsPreferredToASlotForAnyRequest) {
  PlannedArena arena(256);
  // A worker thread's scratch (any request of its size), then the op's output.
  arena.Announce({{0, 64, -1}, {128, 64, 0}});
  void* output = arena.Allocate(64);  // Request 0: its own slot, not the first.
  void* scratch = arena.Allocate(64);
  EXPECT_EQ(static_cast<char*>(output) - static_cast<char*>(scratch), 128);
  EXPECT_EQ(arena.stats().served, 2);
  for (void* p : {output, scratch}) EXPECT_TRUE(arena.Free(p));
}

TEST(PlannedArenaTest, TheWindowMarksRequestsOfOtherThreads) {
  PlannedArena arena(0);
  arena.Announce({});
  void* here = arena.Allocate(32);
  void* there = nullptr;
  std::thread worker([&] { there = arena.Allocate(48); });
  worker.join();
  const std::vector<ArenaRequest> window = arena.window();
  ASSERT_EQ(window.size(), 2u);
  EXPECT_FALSE(window[0].other_thread);
  EXPECT_TRUE(window[1].other_thread);
  EXPECT_EQ(window[1].size, 48);
  for (void* p : {here, there}) EXPECT_TRUE(arena.Free(p));
}

TEST(PlannedArenaTest, RequestIndicesCountTheAnnouncingThreadsRequestsOnly) {
  // A kernel's parallel region: the announcing thread's second request comes after a
  // worker's in this run, before it in another; its slot is found either way.
  PlannedArena arena(256);
  arena.Announce({{0, 64, 0}, {128, 64, 1}});
  void* first = arena.Allocate(64);
  void* worker_scratch = nullptr;
  std::thread worker([&] { worker_scratch = arena.Allocate(32); });
  worker.join();
  void* second = arena.Allocate(64);
  EXPECT_EQ(static_cast<char*>(second) - static_cast<char*>(first), 128);
  EXPECT_EQ(arena.stats().served, 2);
  EXPECT_EQ(arena.stats().fell_through, 1);  // The worker's scratch was not announced.
  for (void* p : {first, worker_scratch, second}) EXPECT_TRUE(arena.Free(p));
}

TEST(PlannedArenaTest, RequestsOnAnotherStreamFallThrough) {
  // A planned address is reused in the step stream's order; a kernel on another stream
  // would race with it, so its request never gets one.
  PlannedArena arena(256);
  arena.Announce({{0, 256}});
  void* other = arena.Allocate(256, /*on_step_stream=*/false);
  void* planned = arena.Allocate(256);
  EXPECT_FALSE(arena.InArena(other));
  EXPECT_TRUE(arena.InArena(planned));
  const ArenaStats stats = arena.stats();
  EXPECT_EQ(stats.served, 1);
  EXPECT_EQ(stats.fell_through, 1);
  EXPECT_EQ(stats.other_stream, 1);
  for (void* p : {other, planned}) EXPECT_TRUE(arena.Free(p));
}

// A fence that passes when the test says so.
class ManualFence final : public Fence {
 public:
  explicit ManualFence(const bool* passed) : passed_(passed) {}
  bool Passed() override { return *passed_; }

 private:
  const bool* passed_;
};

TEST(PlannedArenaTest, FencedBytesAreServedAgainOnlyOnceTheFenceHasPassed) {
  PlannedArena arena(512);
  arena.Announce({{0, 256}});
  void* first = arena.Allocate(256);
  bool passed = false;
  EXPECT_TRUE(arena.FreeAfter(first, std::make_unique<ManualFence>(&passed)));
  EXPECT_EQ(arena.live_allocations(), 0);
  EXPECT_FALSE(arena.Free(first));  // Freed already.
  // The next buffer planned over those bytes must wait: it falls through.
  arena.Announce({{128, 256}});
  void* blocked = arena.Allocate(256);
  EXPECT_FALSE(arena.InArena(blocked));
  EXPECT_EQ(arena.stats().blocked, 1);
  passed = true;
  arena.Announce({{128, 256}});
  void* served = arena.Allocate(256);
  EXPECT_EQ(static_cast<char*>(served) - static_cast<const char*>(arena.base()), 128);
  const ArenaStats stats = arena.stats();
  EXPECT_EQ(stats.fenced, 1);
  EXPECT_EQ(stats.served, 2);
  for (void* p : {blocked, served}) EXPECT_TRUE(arena.Free(p));
  EXPECT_EQ(arena.live_allocations(), 0);
}

TEST(PlannedArenaTest, AFenceThatHasPassedFreesAtOnce) {
  PlannedArena arena(256);
  arena.Announce({{0, 256}});
  void* first = arena.Allocate(256);
  bool passed = true;
  EXPECT_TRUE(arena.FreeAfter(first, std::make_unique<ManualFence>(&passed)));
  EXPECT_EQ(arena.stats().fenced, 0);
  arena.Announce({{0, 256}});
  EXPECT_EQ(arena.Allocate(256), first);
  EXPECT_TRUE(arena.Free(first));
}

// Memory that records what it handed out, as a device allocator underneath would.
class RecordingMemory final : public ArenaMemory {
 public:
  explicit RecordingMemory(std::set<void*>* live) : live_(live) {}
  void* Allocate(size_t bytes) override {
    void* pointer = host_.Allocate(bytes);
    live_->insert(pointer);
    return pointer;
  }
  void Free(void* pointer) override {
    live_->erase(pointer);
    host_.Free(pointer);
  }

 private:
  HostMemory host_;
  std::set<void*>* live_;
};

TEST(PlannedArenaTest, TheBlockAndEveryFallThroughComeFromTheMemoryUnderneath) {
  std::set<void*> live;
  {
    PlannedArena arena(256, std::make_unique<RecordingMemory>(&live));
    EXPECT_EQ(live.size(), 1u);
    EXPECT_EQ(live.count(const_cast<void*>(arena.base())), 1u);
    arena.Announce({{0, 256}});
    void* scratch = arena.Allocate(8);
    EXPECT_EQ(live.count(scratch), 1u);
    EXPECT_TRUE(arena.Free(scratch));
    EXPECT_EQ(live.count(scratch), 0u);
    arena.Allocate(16);  // Still live when the arena goes.
    EXPECT_EQ(live.size(), 2u);
  }
  EXPECT_TRUE(live.empty());
}

}  // namespace
}  // namespace olla
