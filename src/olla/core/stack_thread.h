// StackThread: runs a function on a new thread whose stack has a chosen size, and joins
// it when destroyed. std::thread takes the platform's default stack (8 MiB on Linux),
// which a recursion one level per buffer overflows: the exact placement search goes
// about 320 bytes deeper per buffer placed, so 100,000 buffers need 32 MiB.
//
// If the system refuses such a thread, the function runs on the calling thread instead,
// as a std::thread would have.
#pragma once

#include <cstddef>
#include <functional>

#include <pthread.h>

namespace olla {

// A stack for a recursion `levels` deep: the default 8 MiB plus 2 KiB a level (the
// searches take about 320 bytes a level in a release build; sanitizers and debug builds
// take more). Only the pages touched are committed.
inline size_t StackForRecursion(size_t levels) {
  return (size_t{8} << 20) + levels * 2048;
}

class StackThread {
 public:
  StackThread(size_t stack_bytes, std::function<void()> body);
  ~StackThread();
  StackThread(const StackThread&) = delete;
  StackThread& operator=(const StackThread&) = delete;

 private:
  static void* Start(void* self);

  std::function<void()> body_;
  pthread_t thread_{};
  bool started_ = false;
};

}  // namespace olla
