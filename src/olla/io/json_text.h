// Parsing JSON text into a document, turning the parser's exception into a one-line
// Status ("line 3, column 5: syntax error ...").
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "olla/core/status.h"

namespace olla {

StatusOr<nlohmann::json> ParseJsonText(std::string_view text);

// A JSON string literal for `text` (quoted and escaped).
std::string JsonQuote(std::string_view text);

}  // namespace olla
