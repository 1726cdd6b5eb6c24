#include "olla/runtime/arena_memory.h"

#include <cstdlib>
#include <new>

namespace olla {

void* HostMemory::Allocate(size_t bytes) {
  constexpr size_t kAlignment = 64;  // As c10::alloc_cpu.
  void* pointer = nullptr;
  // posix_memalign takes any size; aligned_alloc wants a multiple of the alignment.
  if (posix_memalign(&pointer, kAlignment, bytes) != 0) throw std::bad_alloc();
  return pointer;
}

void HostMemory::Free(void* pointer) { std::free(pointer); }

}  // namespace olla
