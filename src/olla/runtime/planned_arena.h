// PlannedArena: serves a plan's buffers at their planned offsets in one block of
// memory, allocated once, while the planned step runs (python/olla/torch installs it as
// PyTorch's CPU allocator, or inside its CUDA allocator; docs/torch.md, docs/gpu.md).
// The memory comes from an ArenaMemory (arena_memory.h): the block and every
// fall-through allocation.
//
// Before each op runs, the executor announces the op's planned allocations: an exact
// size and an offset each, and which of the op's allocation requests it is where that
// is known. Kernels often allocate temporaries of their output's size before the
// output itself (a CPU convolution: three allocations of the output's size, the last
// one returned), so the executor learns, on the first run, which request of each op
// becomes each output (the window's log below) and announces that index afterwards.
// A request matching an announced slot (its index, or else the first unclaimed slot of
// its size) gets the planned address. Everything else falls
// through to an aligned system allocation and is counted: kernel scratch (which the
// graph does not model), and any request that does not match the plan. A planned
// address is handed out only while no other live allocation holds any of its bytes,
// so a plan that does not match the run (a size, an order, a tensor kept alive longer
// than planned) costs memory, never correctness: the request falls through, and the
// miss is counted.
//
// With an arena of 0 bytes and no announcements it is a counting allocator: every
// allocation falls through and the peak of live bytes is measured.
//
// On a GPU the step's kernels run in one stream's order, so a planned address is served
// only to requests made on that stream (the caller says which): a request on another
// stream falls through, and bytes another stream may still read when they are freed
// (recordStream) stay out of service until a Fence says that stream's work has run.
//
// Thread safe: kernels may allocate from several threads. The requests of a thread
// other than the announcing one come in no fixed order (the window marks them), so the
// executor announces their slots by size, apart from every other request of the op, and
// a slot's request index counts the announcing thread's requests only (a worker's
// requests interleave with them differently in every run).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "olla/runtime/arena_memory.h"

namespace olla {

struct PlannedSlot {
  int64_t offset = 0;  // From the arena's start.
  int64_t size = 0;    // The exact bytes the allocation will ask for.
  // Which of the op's allocation requests on the announcing thread (0: its first) it
  // is; -1: the first request of this size (on any thread).
  int64_t request = -1;
};

// One allocation request since the last announcement.
struct ArenaRequest {
  int64_t size = 0;
  uintptr_t address = 0;
  // How many requests the window held when this one was freed; -1: still live.
  int64_t freed_at = -1;
  // Made on another thread than the announcing one (a kernel's parallel region): its
  // place among the op's requests, and its lifetime against theirs, vary run to run.
  bool other_thread = false;
};

struct ArenaStats {
  int64_t arena_bytes = 0;
  int64_t served = 0;  // Allocations given their planned address.
  int64_t served_bytes = 0;
  int64_t fell_through = 0;  // Allocations the plan did not know, or could not serve.
  int64_t fell_through_bytes = 0;
  // Of those, requests made on another stream than the step's (never served a planned
  // address).
  int64_t other_stream = 0;
  int64_t fall_through_live_bytes = 0;  // Live now.
  int64_t fall_through_peak_bytes = 0;
  // Announced buffers whose address was taken by a live allocation when requested.
  int64_t blocked = 0;
  // Announced buffers never requested before the next announcement (the op asked for
  // other sizes, or allocated elsewhere).
  int64_t unclaimed = 0;
  // Planned buffers freed while another stream's work might still read them: their
  // bytes waited for a Fence before being served again.
  int64_t fenced = 0;
  // What the step needed: the arena plus the peak of fall-through bytes.
  int64_t peak_bytes() const { return arena_bytes + fall_through_peak_bytes; }
};

class PlannedArena {
 public:
  // Allocates the arena from `memory` (host memory, 64-byte aligned like PyTorch's CPU
  // allocator, unless told otherwise). Throws what `memory` throws when it cannot.
  explicit PlannedArena(int64_t arena_bytes, std::unique_ptr<ArenaMemory> memory =
                                                 std::make_unique<HostMemory>());
  ~PlannedArena();
  PlannedArena(const PlannedArena&) = delete;
  PlannedArena& operator=(const PlannedArena&) = delete;

  // The planned allocations of the op about to run. Slots of the previous op still
  // unclaimed are counted (ArenaStats::unclaimed) and dropped.
  void Announce(std::vector<PlannedSlot> slots);
  // The announcements of a whole step, made once (a step announces before every op,
  // and building each op's slots anew would cost more than many small ops run), then
  // announced by position: AnnounceScheduled(i) is Announce(schedule[i]).
  void SetSchedule(std::vector<std::vector<PlannedSlot>> schedule);
  // Throws std::out_of_range for a position the schedule does not hold.
  void AnnounceScheduled(size_t position);

  // A pointer to `bytes` bytes (nullptr for 0 bytes): a planned address or a
  // fall-through allocation. `on_step_stream`: false for a request made on another
  // stream than the step's, which falls through. Throws what the memory throws when a
  // fall-through fails.
  void* Allocate(size_t bytes, bool on_step_stream = true);
  // Frees what Allocate returned (nullptr is ignored). Returns false for a pointer this
  // arena did not hand out (nothing is freed then).
  bool Free(void* pointer);
  // Free(), but a planned address's bytes are served again only once `fence` has
  // passed (none: at once). A fall-through pointer is given back at once: the memory
  // underneath orders its own reuse.
  bool FreeAfter(void* pointer, std::unique_ptr<Fence> fence);
  // Whether `pointer` lies inside the arena block, and the block's first byte.
  bool InArena(const void* pointer) const;
  const void* base() const { return base_; }

  ArenaStats stats() const;
  // Starts the counts afresh (the fall-through peak from what is live now): each step
  // of a training loop reuses the arena and reports its own counts.
  void ResetStats();
  int64_t live_allocations() const;
  // The requests since the last announcement, in order (requests of 0 bytes too), and
  // when each was freed: what the executor learns an op's scratch from.
  std::vector<ArenaRequest> window() const;

 private:
  // Caller holds mutex_ for these.
  int64_t FindSlot(size_t bytes, int64_t request) const;  // Index in announced_, or -1.
  void* ServePlanned(size_t bytes, int64_t request);
  // Whether a live range holds a byte of [begin, end); fenced ranges whose fence has
  // passed are released on the way.
  bool Overlaps(int64_t begin, int64_t end);

  mutable std::mutex mutex_;
  std::unique_ptr<ArenaMemory> memory_;
  char* base_ = nullptr;
  int64_t arena_bytes_ = 0;
  std::vector<std::vector<PlannedSlot>> schedule_;
  std::vector<PlannedSlot> announced_;
  std::vector<bool> claimed_;
  std::vector<ArenaRequest> window_;
  std::thread::id announcer_;               // The thread that made the last announcement.
  int64_t announcer_requests_ = 0;          // Its requests since.
  std::map<int64_t, int64_t> live_ranges_;  // offset -> end, in the arena
  // Ranges of live_ranges_ already freed, waiting for their fence.
  std::map<int64_t, std::unique_ptr<Fence>> fenced_;
  std::unordered_map<void*, int64_t> fall_through_live_;  // pointer -> bytes
  ArenaStats stats_;
};

}  // namespace olla
