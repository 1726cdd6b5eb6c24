// RangeMax: the largest of a fixed run of values over any contiguous stretch, in O(1)
// per query after O(k log k) preparation for k values (a sparse table: for every
// power-of-two width, the maximum of each window of that width; a query covers its
// stretch with two overlapping windows).
//
// The exact placement search ranks buffers by the fullest section they live through,
// for every buffer of a part at once: with this, that costs O(k log k + n) instead of
// the sum of the buffers' spans (13 million sections on pangu_2.6B).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace olla {

class RangeMax {
 public:
  explicit RangeMax(std::vector<int64_t> values);

  // The largest value at positions [first, last); requires first < last <= size.
  int64_t Max(int64_t first, int64_t last) const {
    const auto lo = static_cast<size_t>(first);
    const auto width = static_cast<size_t>(last - first);
    const auto level = static_cast<size_t>(std::bit_width(width) - 1);
    const std::vector<int64_t>& windows = levels_[level];
    return std::max(windows[lo], windows[lo + width - (size_t{1} << level)]);
  }

 private:
  std::vector<std::vector<int64_t>> levels_;  // levels_[j][i]: max of [i, i + 2^j).
};

}  // namespace olla
