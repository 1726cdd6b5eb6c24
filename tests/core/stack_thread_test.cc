#include "olla/core/stack_thread.h"

#include <atomic>
#include <cstring>

#include <gtest/gtest.h>

namespace olla {
namespace {

// Recurses `depth` levels with a 4 KiB frame that the compiler cannot drop.
int64_t Deep(int64_t depth) {
  volatile char frame[4096];
  std::memset(const_cast<char*>(frame), static_cast<int>(depth & 0x7f), sizeof(frame));
  if (depth == 0) return frame[0];
  return Deep(depth - 1) + frame[depth % 4096];
}

TEST(StackThreadTest, RunsTheBodyAndJoins) {
  std::atomic<int> runs = 0;
  {
    StackThread thread(1 << 20, [&] { ++runs; });
  }
  EXPECT_EQ(runs, 1);
}

TEST(StackThreadTest, HoldsARecursionDeeperThanTheDefaultStack) {
  // 16,384 levels of 4 KiB: 64 MiB, eight times Linux's default thread stack.
  constexpr int64_t kDepth = 16384;
  int64_t result = -1;
  {
    StackThread thread(size_t{256} << 20, [&] { result = Deep(kDepth); });
  }
  EXPECT_GE(result, 0);
}

}  // namespace
}  // namespace olla
