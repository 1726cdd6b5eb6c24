// The largest quantities olla accepts, chosen so that every sum the core computes fits
// in 64 signed bits without checking it again: whatever a search adds up (an arena, a
// live set, sizes rounded up to 512 bytes or 2 MiB, alignment padding for up to 2^31
// buffers) stays below 2^63. Inputs beyond them are rejected where they enter (graph
// and CSV loaders, options) with a message naming the value; docs/graph-format.md and
// README.md state them.
#pragma once

#include <cstdint>

namespace olla {

// All buffer sizes and workspaces of a graph (or a placement problem) together.
inline constexpr int64_t kMaxTotalBytes = int64_t{1} << 62;
// One alignment (or the least common multiple of two): 1 GiB.
inline constexpr int64_t kMaxAlignment = int64_t{1} << 30;
// An op's measured cost is at most this many seconds (11.6 days): in nanoseconds
// (remat/cost.h) it fits in 64 bits a thousand times over, and sums saturate.
inline constexpr double kMaxOpSeconds = 1e6;
// Lifetimes of a placement problem lie in [-kMaxTime, kMaxTime], so their lengths fit.
inline constexpr int64_t kMaxTime = int64_t{1} << 61;

}  // namespace olla
