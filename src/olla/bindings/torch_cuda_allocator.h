// olla's planned arena inside PyTorch's CUDA allocator (docs/gpu.md): while a planned
// step runs, an olla CUDAAllocator stands in PyTorch's global allocator pointer
// (c10::cuda::CUDACachingAllocator::allocator, the pointer PyTorch's own
// change_current_allocator sets). It serves the step's planned requests from one arena
// allocated once from the native caching allocator, and forwards everything else to
// that allocator: unplanned requests (counted as fall-through), statistics, pools,
// snapshots, IPC. So torch.cuda.memory_stats keeps working, and counts the arena as one
// allocation plus what fell through.
//
// Built only against a CUDA build of PyTorch (OLLA_TORCH_CUDA); the module reports
// whether it was.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "olla/runtime/planned_arena.h"

namespace olla {

// An arena of `arena_bytes` on the current CUDA device, allocated from the native
// caching allocator on the current stream. Throws std::runtime_error when PyTorch's
// CUDA allocator has not been initialized or is not the native one.
std::shared_ptr<PlannedArena> NewCudaArena(int64_t arena_bytes);
// Puts olla's allocator in PyTorch's place: requests on the current device's current
// stream may get planned addresses from `arena` (NewCudaArena's, made on the current
// device: arena.py switches to the arena's device first). Makes no CUDA call that a
// graph's capture forbids (replay.py installs inside one). Throws when one is already
// installed.
void InstallCuda(std::shared_ptr<PlannedArena> arena);
// Puts the native allocator back (nothing when none is installed).
void UninstallCuda();
bool CudaInstalled();
// The file of the libc10_cuda whose allocator pointer InstallCuda() sets: the one this
// module's c10_cuda symbols resolved to when it was loaded.
std::string C10CudaLibrary();

}  // namespace olla
