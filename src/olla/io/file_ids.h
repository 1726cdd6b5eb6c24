// Files name ops and buffers by the ids of the graph file; the library by index.
#pragma once

#include <cstdint>
#include <unordered_map>

namespace olla {

// file id -> index, for the ops or the buffers of a graph.
template <typename IdType, typename Items>
std::unordered_map<int64_t, IdType> IndexByFileId(const Items& items) {
  std::unordered_map<int64_t, IdType> index;
  index.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    index.emplace(items[i].file_id, IdType(static_cast<int32_t>(i)));
  }
  return index;
}

}  // namespace olla
