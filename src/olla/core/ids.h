// Strong id types. OpId and BufferId are dense indices (0..n-1) into a Graph's ops and
// buffers; the ids written in a graph file are kept beside them for messages and I/O.
// Distinct types make it a compile error to index buffers with an op id.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>

namespace olla {

template <typename Tag>
class Id {
 public:
  constexpr Id() = default;
  constexpr explicit Id(int32_t value) : value_(value) {}
  constexpr int32_t value() const { return value_; }
  constexpr size_t index() const { return static_cast<size_t>(value_); }
  constexpr bool valid() const { return value_ >= 0; }
  constexpr auto operator<=>(const Id&) const = default;

 private:
  int32_t value_ = -1;
};

using OpId = Id<struct OpTag>;
using BufferId = Id<struct BufferTag>;

}  // namespace olla

template <typename Tag>
struct std::hash<olla::Id<Tag>> {
  size_t operator()(olla::Id<Tag> id) const { return std::hash<int32_t>()(id.value()); }
};
