// The memory-compute curve of pipeline/tradeoff.h as `olla tradeoff` prints it: a text
// table and one JSON object.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "olla/graph/graph.h"
#include "olla/pipeline/tradeoff.h"

namespace olla {

std::string TradeoffText(const Graph& graph, const Tradeoff& tradeoff);
nlohmann::ordered_json TradeoffJson(const Graph& graph, const Tradeoff& tradeoff);

}  // namespace olla
