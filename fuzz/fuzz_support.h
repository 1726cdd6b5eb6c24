// What every fuzz target checks of a rejection, and the fixed inputs they share.
#pragma once

#include <cstdlib>
#include <string>

#include "olla/core/status.h"
#include "olla/graph/graph.h"
#include "olla/io/graph_json.h"

namespace olla::fuzz {

// Larger inputs are parsed but not run through the searches, so that each execution
// stays fast and the fuzzer explores the parsers.
inline constexpr int32_t kMaxOpsToRun = 200;

// A rejection is one line of text that says something (olla's promise for bad input).
inline void ExpectOneLine(const std::string& message) {
  if (message.empty() || message.find('\n') != std::string::npos) std::abort();
}
inline void ExpectOneLine(const Status& status) {
  if (status.code() == StatusCode::kInternal) std::abort();
  ExpectOneLine(status.message());
}

// OLLA's Figure 3 (examples/figure3.json), for the targets that need a graph.
inline Graph Figure3() {
  StatusOr<Graph> graph = LoadGraph(OLLA_SOURCE_DIR "/examples/figure3.json");
  if (!graph.ok()) std::abort();
  return std::move(graph).value();
}

}  // namespace olla::fuzz
