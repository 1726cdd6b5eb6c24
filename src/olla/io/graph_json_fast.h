// The fast path of graph loading: simdjson's On-Demand parser reads a well-formed graph
// file several times faster than the strict reader (graph_json.cc, nlohmann's parser),
// which stays the one that explains errors.
//
// FastParseGraph accepts a file only when every rule the strict reader checks holds:
// the header, the known fields and their types, no repeated field, ids unique and every
// reference resolved, and Graph::Create's checks. At the first doubt it returns nothing
// and ParseGraph runs the strict reader, which then gives the error (or, for what only
// simdjson refuses, reads the file). So a graph it returns is the one the strict reader
// returns: the fuzz target for graph files checks exactly that.
//
// A 1M-op graph (266 MB of JSON), reading it and building the graph: 0.8-0.9 s against
// the strict reader's 4.0 s.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "olla/graph/graph.h"

namespace olla {

// `capacity`: the bytes readable from json_text.data(), at least its size; with
// SIMDJSON_PADDING (64) to spare, as ReadFile leaves, the text is parsed in place
// instead of copied.
std::optional<Graph> FastParseGraph(std::string_view json_text, size_t capacity = 0);

}  // namespace olla
