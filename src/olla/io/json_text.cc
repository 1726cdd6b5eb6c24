#include "olla/io/json_text.h"

#include <string>

#include <fmt/format.h>

namespace olla {

StatusOr<JsonValue> ParseJsonText(std::string_view text) {
  // The parser takes a NUL byte for the end of the text and would accept whatever
  // follows it: JSON text has none.
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
    return InvalidInput(fmt::format("malformed JSON: a NUL byte at offset {}", nul));
  }
  try {
    return JsonValue::parse(text);
  } catch (const JsonValue::exception& error) {
    // Parse errors and number overflow (1e400). what() is
    // "[json.exception.parse_error.101] parse error at line 3, column 5: ..."; keep the
    // part after the bracketed tag, and no control characters from the input.
    std::string message = error.what();
    const size_t tag_end = message.find("] ");
    if (tag_end != std::string::npos) message = message.substr(tag_end + 2);
    for (char& c : message) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
    }
    return InvalidInput("malformed JSON: " + message);
  }
}

std::string JsonQuote(std::string_view text) {
  return JsonValue(text).dump(-1, ' ', false, JsonValue::error_handler_t::replace);
}

}  // namespace olla
