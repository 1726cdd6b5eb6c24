// libFuzzer target: Optimize() end to end on small graphs that parse, then in budget
// mode at half the arena found (recomputing where the graph allows). Every plan it
// returns has passed the checker inside Optimize; an internal error is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "olla/io/graph_json.h"
#include "olla/pipeline/optimize.h"

#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  olla::StatusOr<olla::Graph> graph = olla::ParseGraph(text);
  if (!graph.ok() || graph->num_ops() > 40) return 0;
  olla::OptimizeOptions options;
  options.threads = 1;
  auto result = olla::Optimize(*graph, options, olla::Budget::OfWork(5000));
  if (!result.ok()) {
    if (result.status().code() == olla::StatusCode::kInternal) std::abort();
    olla::fuzz::ExpectOneLine(result.status());
    return 0;
  }
  options.memory_budget = result->arena_bytes() / 2;
  auto budgeted = olla::Optimize(*graph, options, olla::Budget::OfWork(5000));
  if (!budgeted.ok() && budgeted.status().code() == olla::StatusCode::kInternal)
    std::abort();
  return 0;
}
