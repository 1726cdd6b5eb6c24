// libFuzzer target: the graph loader. Any text either parses into a valid Graph or is
// rejected with a one-line message; a small graph that parses is also simulated, which
// exercises the analyses on whatever the loader let through.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "olla/io/graph_json.h"
#include "olla/simulation/eager_report.h"

#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  olla::StatusOr<olla::Graph> graph = olla::ParseGraph(text);
  if (!graph.ok()) {
    olla::fuzz::ExpectOneLine(graph.status());
    return 0;
  }
  if (graph->num_ops() <= olla::fuzz::kMaxOpsToRun) olla::SimulateEager(*graph);
  return 0;
}
