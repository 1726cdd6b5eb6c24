#include "olla/placement/sections.h"

#include <algorithm>

namespace olla {

namespace {

// Every distinct start and end, sorted.
std::vector<int64_t> Boundaries(const PlacementProblem& problem) {
  std::vector<int64_t> times;
  for (const PlacementBuffer& b : problem.buffers) {
    times.push_back(b.start);
    times.push_back(b.end);
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  return times;
}

}  // namespace

int64_t CountSectionSpans(const PlacementProblem& problem) {
  const std::vector<int64_t> times = Boundaries(problem);
  int64_t spans = 0;
  for (const PlacementBuffer& b : problem.buffers) {
    spans += std::lower_bound(times.begin(), times.end(), b.end) -
             std::lower_bound(times.begin(), times.end(), b.start);
  }
  return spans;
}

Sections ComputeSections(const PlacementProblem& problem) {
  Sections sections;
  sections.times = Boundaries(problem);
  const auto count =
      static_cast<int32_t>(sections.times.empty() ? 0 : sections.times.size() - 1);
  sections.buffers_in.resize(static_cast<size_t>(count));
  auto index_of = [&](int64_t time) {
    return static_cast<int32_t>(
        std::lower_bound(sections.times.begin(), sections.times.end(), time) -
        sections.times.begin());
  };
  // spanning[k]: how many buffers span the boundary between sections k and k + 1.
  std::vector<int32_t> spanning(static_cast<size_t>(count), 0);
  for (int32_t i = 0; i < problem.size(); ++i) {
    const PlacementBuffer& b = problem.buffers[static_cast<size_t>(i)];
    const SectionRange range{index_of(b.start), index_of(b.end)};
    sections.of_buffer.push_back(range);
    for (int32_t s = range.first; s < range.last; ++s) {
      sections.buffers_in[static_cast<size_t>(s)].push_back(i);
      if (s + 1 < range.last) ++spanning[static_cast<size_t>(s)];
    }
  }
  // Partitions: maximal runs of sections joined by spanned boundaries.
  std::vector<int32_t> partition_of(static_cast<size_t>(count), 0);
  for (int32_t s = 0; s < count; ++s) {
    if (s == 0 || spanning[static_cast<size_t>(s - 1)] == 0) {
      sections.partitions.push_back({{s, s + 1}, {}});
    } else {
      sections.partitions.back().sections.last = s + 1;
    }
    partition_of[static_cast<size_t>(s)] =
        static_cast<int32_t>(sections.partitions.size() - 1);
  }
  for (int32_t i = 0; i < problem.size(); ++i) {
    const SectionRange range = sections.of_buffer[static_cast<size_t>(i)];
    sections
        .partitions[static_cast<size_t>(partition_of[static_cast<size_t>(range.first)])]
        .buffers.push_back(i);
  }
  // Drop sections in which nothing lives (gaps between lifetimes).
  std::erase_if(sections.partitions,
                [](const Partition& p) { return p.buffers.empty(); });
  return sections;
}

}  // namespace olla
