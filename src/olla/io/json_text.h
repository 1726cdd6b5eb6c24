// Parsing JSON text into a document, turning the parser's exception into a one-line
// Status ("line 3, column 5: syntax error ...").
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "olla/core/status.h"

namespace olla {

// The document type of every file olla reads. Objects keep their fields in a vector
// (ordered_map): graph files hold millions of small objects, and a vector is one
// allocation where std::map is one per field.
using JsonValue = nlohmann::ordered_json;

StatusOr<JsonValue> ParseJsonText(std::string_view text);

// A JSON string literal for `text` (quoted and escaped).
std::string JsonQuote(std::string_view text);

}  // namespace olla
