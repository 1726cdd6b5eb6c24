// Sections: the time axis of a placement problem cut at every distinct start and end.
//
// Section k is the stretch [time[k], time[k+1]) in which the set of live buffers is
// constant; each buffer spans a contiguous range of sections. A boundary between two
// sections that no buffer spans is a cut: the buffers on either side never meet, so
// the problem splits into independent partitions there. Cost: O(n log n + sum of
// section spans).
#pragma once

#include <cstdint>
#include <vector>

#include "olla/placement/problem.h"

namespace olla {

struct SectionRange {
  int32_t first = 0;
  int32_t last = 0;  // Exclusive.
};

struct Partition {
  SectionRange sections;
  std::vector<int32_t> buffers;  // Indices into problem.buffers, increasing.
};

struct Sections {
  std::vector<int64_t> times;  // Boundaries: section k is [times[k], times[k+1]).
  std::vector<SectionRange> of_buffer;           // The sections each buffer spans.
  std::vector<std::vector<int32_t>> buffers_in;  // The buffers live in each section.
  std::vector<Partition> partitions;             // Split at every cut, in time order.

  int32_t size() const { return static_cast<int32_t>(buffers_in.size()); }
};

Sections ComputeSections(const PlacementProblem& problem);

// The sum over buffers of the number of sections each spans, without building the
// sections: what the per-section state of a search over them costs. O(n log n).
int64_t CountSectionSpans(const PlacementProblem& problem);

}  // namespace olla
