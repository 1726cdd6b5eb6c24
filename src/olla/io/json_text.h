// Parsing JSON text into a document, turning the parser's exception into a one-line
// Status ("line 3, column 5: syntax error ...").
#pragma once

#include <functional>
#include <initializer_list>
#include <string_view>

#include <nlohmann/json.hpp>

#include "olla/core/status.h"

namespace olla {

// The document type of every file olla reads. Objects keep their fields in a vector
// (ordered_map): graph files hold millions of small objects, and a vector is one
// allocation where std::map is one per field.
using JsonValue = nlohmann::ordered_json;

StatusOr<JsonValue> ParseJsonText(std::string_view text);

// Parses `text` as ParseJsonText does (the same errors), except that the elements of
// the top-level object's arrays named in `streamed` are not kept: each is built alone
// and handed to `on_element(key, index, element)` as soon as it is complete, and the
// document holds an empty array in its place. A graph file's buffers and ops are
// millions of small objects: streamed, the whole document never exists at once (a
// 1M-op graph: 2.1 GiB and 8 s as one document). `on_array(key)` is called when such
// an array starts (a repeated key starts it again, and replaces the first, as in a
// document). Returns the document without the streamed elements.
StatusOr<JsonValue> ParseJsonStreaming(
    std::string_view text, std::initializer_list<std::string_view> streamed,
    const std::function<void(std::string_view key)>& on_array,
    const std::function<void(std::string_view key, size_t index, JsonValue&& element)>&
        on_element);

// A JSON string literal for `text` (quoted and escaped).
std::string JsonQuote(std::string_view text);

}  // namespace olla
