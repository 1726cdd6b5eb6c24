// libFuzzer target: the graph loader. Any text either parses into a valid Graph or is
// rejected with a one-line message; a small graph that parses is also simulated, which
// exercises the analyses on whatever the loader let through. The fast path and the
// strict reader agree: what the fast path accepts, the strict reader reads the same.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "olla/io/graph_json.h"
#include "olla/io/graph_json_fast.h"
#include "olla/simulation/eager_report.h"

#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (const std::optional<olla::Graph> fast = olla::FastParseGraph(text)) {
    const olla::StatusOr<olla::Graph> strict = olla::ParseGraphStrict(text);
    OLLA_CHECK(strict.ok(), "the fast path accepted what the strict reader refuses: " +
                                strict.status().message());
    OLLA_CHECK(olla::GraphToJson(*fast) == olla::GraphToJson(*strict),
               "the fast path and the strict reader read different graphs");
  }
  olla::StatusOr<olla::Graph> graph = olla::ParseGraph(text);
  if (!graph.ok()) {
    olla::fuzz::ExpectOneLine(graph.status());
    return 0;
  }
  if (graph->num_ops() <= olla::fuzz::kMaxOpsToRun) olla::SimulateEager(*graph);
  return 0;
}
