#include "olla/placement/range_max.h"

#include <algorithm>
#include <random>

#include <gtest/gtest.h>

namespace olla {
namespace {

TEST(RangeMaxTest, MatchesAScanOnEveryStretch) {
  std::mt19937_64 random(7);
  for (size_t k : {1, 2, 3, 5, 8, 13, 64, 100}) {
    std::vector<int64_t> values(k);
    for (int64_t& v : values) v = static_cast<int64_t>(random() % 1000) - 500;
    const RangeMax range_max(values);
    for (size_t first = 0; first < k; ++first) {
      for (size_t last = first + 1; last <= k; ++last) {
        const int64_t expected =
            *std::max_element(values.begin() + static_cast<int64_t>(first),
                              values.begin() + static_cast<int64_t>(last));
        ASSERT_EQ(range_max.Max(static_cast<int64_t>(first), static_cast<int64_t>(last)),
                  expected)
            << "k " << k << " [" << first << ", " << last << ")";
      }
    }
  }
}

}  // namespace
}  // namespace olla
