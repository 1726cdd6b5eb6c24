// ArenaMemory: where a PlannedArena's bytes come from. The arena's bookkeeping (which
// request gets which planned address, what falls through, what is still live) is the
// same on every device; only the memory underneath differs: host memory for PyTorch's
// CPU allocator (HostMemory below), device memory from PyTorch's own CUDA caching
// allocator for the CUDA one (src/olla/bindings/torch_cuda_allocator.cc).
//
// A Fence tells when bytes freed on the host may be handed out again: on one stream of
// a device, a later kernel runs after the earlier ones, so reuse needs no fence; bytes a
// kernel on another stream still reads (PyTorch's recordStream) are reusable once the
// work queued there before the free has run.
#pragma once

#include <cstddef>

namespace olla {

class ArenaMemory {
 public:
  virtual ~ArenaMemory() = default;
  // `bytes` bytes (more than 0), aligned as the device's allocator aligns. Throws
  // std::bad_alloc (or the device allocator's out-of-memory error) when none are left.
  virtual void* Allocate(size_t bytes) = 0;
  // Gives back what Allocate returned.
  virtual void Free(void* pointer) = 0;
};

// The C library's memory, 64-byte aligned as c10's CPU allocator aligns it.
class HostMemory final : public ArenaMemory {
 public:
  void* Allocate(size_t bytes) override;
  void Free(void* pointer) override;
};

class Fence {
 public:
  virtual ~Fence() = default;
  // Whether the work the fence waits for has run (polled; never blocks).
  virtual bool Passed() = 0;
};

}  // namespace olla
