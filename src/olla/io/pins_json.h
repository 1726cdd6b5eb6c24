// The pins file: ordering constraints a user adds to a graph for `olla schedule --pin`.
//
//   {"format": "olla.pins", "version": 1, "chains": [[12, 7, 30], [5, 6]]}
//
// Each chain lists op ids of the graph file that must run in that order (not
// necessarily back to back). Errors name the JSON path, as for graphs and plans.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "olla/core/status.h"
#include "olla/graph/graph.h"

namespace olla {

inline constexpr int kPinsFormatVersion = 1;

StatusOr<std::vector<std::vector<OpId>>> ParsePins(std::string_view json_text,
                                                   const Graph& graph);
StatusOr<std::vector<std::vector<OpId>>> LoadPins(const std::string& path,
                                                  const Graph& graph);

}  // namespace olla
