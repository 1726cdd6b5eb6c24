#include "olla/io/json_text.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace olla {

namespace {

// The parser takes a NUL byte for the end of the text and would accept whatever
// follows it: JSON text has none.
Status CheckNoNul(std::string_view text) {
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos)
    return InvalidInput(fmt::format("malformed JSON: a NUL byte at offset {}", nul));
  return OkStatus();
}

// Parse errors and number overflow (1e400). what() is
// "[json.exception.parse_error.101] parse error at line 3, column 5: ..."; keep the part
// after the bracketed tag, and no control characters from the input.
Status Malformed(std::string message) {
  const size_t tag_end = message.find("] ");
  if (tag_end != std::string::npos) message = message.substr(tag_end + 2);
  for (char& c : message) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return InvalidInput("malformed JSON: " + message);
}

// nlohmann's SAX interface, building the document as its DOM parser does, but the
// streamed arrays' elements one at a time.
class StreamingBuilder {
 public:
  using Key = std::function<void(std::string_view)>;
  using Element = std::function<void(std::string_view, size_t, JsonValue&&)>;

  StreamingBuilder(std::initializer_list<std::string_view> streamed, const Key& on_array,
                   const Element& on_element)
      : streamed_(streamed), on_array_(on_array), on_element_(on_element) {}

  bool null() { return Put(nullptr); }
  bool boolean(bool value) { return Put(value); }
  bool number_integer(JsonValue::number_integer_t value) { return Put(value); }
  bool number_unsigned(JsonValue::number_unsigned_t value) { return Put(value); }
  bool number_float(JsonValue::number_float_t value, const std::string& text) {
    if (!std::isfinite(value)) {  // As the DOM parser refuses it.
      error_ = Malformed("number overflow parsing '" + text + "'");
      return false;
    }
    return Put(value);
  }
  bool string(std::string& value) { return Put(std::move(value)); }
  bool binary(JsonValue::binary_t& value) { return Put(std::move(value)); }
  bool start_object(size_t) { return Open(JsonValue::object()); }
  bool key(std::string& key) {
    key_ = std::move(key);
    return true;
  }
  bool end_object() { return Close(); }
  bool start_array(size_t) {
    // A streamed array: a key of the top-level object, and its value an array.
    if (stack_.size() == 1 && stack_.back()->is_object() &&
        std::find(streamed_.begin(), streamed_.end(), key_) != streamed_.end()) {
      Put(JsonValue::array());
      stream_key_ = key_;
      stream_depth_ = stack_.size() + 1;
      stack_.push_back(&(*stack_.back())[key_]);
      stream_index_ = 0;
      on_array_(stream_key_);
      return true;
    }
    return Open(JsonValue::array());
  }
  bool end_array() {
    if (stack_.size() == stream_depth_) stream_depth_ = 0;
    return Close();
  }
  bool parse_error(size_t, const std::string&, const nlohmann::detail::exception& error) {
    error_ = Malformed(error.what());
    return false;
  }

  JsonValue& document() { return document_; }
  const Status& error() const { return error_; }

 private:
  bool Streaming() const { return stream_depth_ != 0 && stack_.size() == stream_depth_; }

  // Adds a complete value (or an empty container about to be filled) where the
  // parser is; returns it.
  JsonValue* Insert(JsonValue&& value) {
    if (stack_.empty()) {
      document_ = std::move(value);
      return &document_;
    }
    if (Streaming()) {
      element_ = std::move(value);
      return &element_;
    }
    JsonValue& parent = *stack_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return &parent.back();
    }
    JsonValue& slot = parent[key_];
    slot = std::move(value);
    return &slot;
  }
  bool Put(JsonValue&& value) {
    const bool element = Streaming();
    Insert(std::move(value));
    if (element) Deliver();
    return true;
  }
  bool Open(JsonValue&& container) {
    stack_.push_back(Insert(std::move(container)));
    return true;
  }
  bool Close() {
    stack_.pop_back();
    if (Streaming()) Deliver();  // An element's own container closed.
    return true;
  }
  void Deliver() {
    on_element_(stream_key_, stream_index_++, std::move(element_));
    element_ = JsonValue();
  }

  std::vector<std::string_view> streamed_;
  const Key& on_array_;
  const Element& on_element_;
  JsonValue document_;
  JsonValue element_;
  std::vector<JsonValue*> stack_;
  std::string key_;
  std::string stream_key_;
  size_t stream_depth_ = 0;  // Stack depth inside a streamed array (0: none).
  size_t stream_index_ = 0;
  Status error_;
};

}  // namespace

StatusOr<JsonValue> ParseJsonText(std::string_view text) {
  OLLA_RETURN_IF_ERROR(CheckNoNul(text));
  try {
    return JsonValue::parse(text);
  } catch (const JsonValue::exception& error) {
    return Malformed(error.what());
  }
}

StatusOr<JsonValue> ParseJsonStreaming(
    std::string_view text, std::initializer_list<std::string_view> streamed,
    const std::function<void(std::string_view key)>& on_array,
    const std::function<void(std::string_view key, size_t index, JsonValue&& element)>&
        on_element) {
  OLLA_RETURN_IF_ERROR(CheckNoNul(text));
  StreamingBuilder builder(streamed, on_array, on_element);
  if (!JsonValue::sax_parse(text, &builder)) {
    return builder.error().ok() ? Malformed("the parser stopped") : builder.error();
  }
  return std::move(builder.document());
}

std::string JsonQuote(std::string_view text) {
  return JsonValue(text).dump(-1, ' ', false, JsonValue::error_handler_t::replace);
}

}  // namespace olla
