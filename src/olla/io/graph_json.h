// The graph file format, version 1 (docs/graph-format.md): reading with validation,
// and writing. Files may be gzip-compressed (.json.gz).
//
// Reading checks the syntax here (JSON, types, required and unknown fields, version,
// duplicate and dangling ids) and the memory model in Graph::Create; every error is one
// line naming the file and the JSON path, op or buffer. Cost: linear in the file size. A
// well-formed file is read by the fast path (graph_json_fast.h), anything else by the
// strict reader, which explains what is wrong.
#pragma once

#include <string>
#include <string_view>

#include "olla/core/status.h"
#include "olla/graph/graph.h"

namespace olla {

inline constexpr int kGraphFormatVersion = 1;

StatusOr<Graph> ParseGraph(std::string_view json_text);
// The strict reader alone (tests and fuzzing compare the two readers).
StatusOr<Graph> ParseGraphStrict(std::string_view json_text);
StatusOr<Graph> LoadGraph(const std::string& path);

// The graph in format version 1: one buffer or op per line, stable field order.
std::string GraphToJson(const Graph& graph);
Status SaveGraph(const Graph& graph, const std::string& path);

}  // namespace olla
