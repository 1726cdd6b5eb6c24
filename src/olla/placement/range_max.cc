#include "olla/placement/range_max.h"

#include <utility>

namespace olla {

RangeMax::RangeMax(std::vector<int64_t> values) {
  const size_t k = values.size();
  levels_.push_back(std::move(values));
  for (size_t width = 2; width <= k; width *= 2) {
    const std::vector<int64_t>& half = levels_.back();
    std::vector<int64_t> windows(k - width + 1);
    for (size_t i = 0; i < windows.size(); ++i)
      windows[i] = std::max(half[i], half[i + width / 2]);
    levels_.push_back(std::move(windows));
  }
}

}  // namespace olla
