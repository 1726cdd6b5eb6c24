#include "olla/io/json_object.h"

#include <fmt/format.h>

namespace olla {

std::string JsonTypeName(const JsonValue& value) {
  switch (value.type()) {
    case JsonValue::value_t::null:
      return "null";
    case JsonValue::value_t::boolean:
      return "a boolean";
    case JsonValue::value_t::number_integer:
    case JsonValue::value_t::number_unsigned:
      return "an integer";
    case JsonValue::value_t::number_float:
      return "a fractional number";
    case JsonValue::value_t::string:
      return "a string";
    case JsonValue::value_t::array:
      return "an array";
    case JsonValue::value_t::object:
      return "an object";
    default:
      return "an unsupported value";
  }
}

std::optional<int64_t> ReadIntElement(const JsonValue& value, const std::string& path,
                                      Status& status) {
  if (value.is_number_integer()) {
    // nlohmann stores integers above INT64_MAX as unsigned.
    if (value.is_number_unsigned() && value.get<uint64_t>() > uint64_t{INT64_MAX}) {
      status = InvalidInput(path + ": integer does not fit in 64 bits");
      return std::nullopt;
    }
    return value.get<int64_t>();
  }
  if (value.is_number_float()) {
    status =
        InvalidInput(fmt::format("{}: expected an integer, got {} (too large or "
                                 "fractional)",
                                 path, value.dump()));
  } else {
    status = InvalidInput(path + ": expected an integer, got " + JsonTypeName(value));
  }
  return std::nullopt;
}

JsonObject::JsonObject(const JsonValue& value, std::string path)
    : path_(std::move(path)) {
  if (value.is_object()) {
    object_ = &value;
    read_.assign(value.size(), false);
  } else {
    status_ = InvalidInput(fmt::format("{}: expected an object, got {}",
                                       path_.empty() ? "top level" : path_,
                                       JsonTypeName(value)));
  }
}

std::string JsonObject::PathOf(std::string_view key) const {
  return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
}

void JsonObject::Fail(const std::string& path, const std::string& message) {
  if (status_.ok())
    status_ = InvalidInput((path.empty() ? path_ : path) + ": " + message);
}

bool JsonObject::Has(std::string_view key) const {
  return object_ != nullptr && object_->find(key) != object_->end();
}

const JsonValue* JsonObject::Find(std::string_view key) {
  if (object_ == nullptr) return nullptr;
  // The fields in file order (ordered_map is a vector of pairs): mark the one read.
  size_t i = 0;
  for (const auto& [name, value] : object_->get_ref<const JsonValue::object_t&>()) {
    if (name == key) {
      read_[i] = true;
      return &value;
    }
    ++i;
  }
  return nullptr;
}

const JsonValue* JsonObject::Required(std::string_view key) {
  const JsonValue* value = Find(key);
  if (value == nullptr && ok()) {
    Fail(path_.empty() ? "top level" : path_,
         fmt::format("missing required field '{}'", key));
  }
  return value;
}

int64_t JsonObject::Int(std::string_view key) {
  const JsonValue* value = Required(key);
  if (value == nullptr || !ok()) return 0;
  return ReadIntElement(*value, PathOf(key), status_).value_or(0);
}

int64_t JsonObject::Int(std::string_view key, int64_t fallback) {
  const JsonValue* value = Find(key);
  if (value == nullptr || !ok()) return fallback;
  return ReadIntElement(*value, PathOf(key), status_).value_or(fallback);
}

std::string JsonObject::String(std::string_view key) {
  const JsonValue* value = Required(key);
  if (value == nullptr || !ok()) return "";
  if (!value->is_string()) {
    Fail(PathOf(key), "expected a string, got " + JsonTypeName(*value));
    return "";
  }
  return value->get<std::string>();
}

std::string JsonObject::String(std::string_view key, std::string fallback) {
  if (!Has(key)) {
    Find(key);
    return fallback;
  }
  return String(key);
}

bool JsonObject::Bool(std::string_view key, bool fallback) {
  const JsonValue* value = Find(key);
  if (value == nullptr || !ok()) return fallback;
  if (!value->is_boolean()) {
    Fail(PathOf(key), "expected true or false, got " + JsonTypeName(*value));
    return fallback;
  }
  return value->get<bool>();
}

std::optional<double> JsonObject::OptionalNumber(std::string_view key) {
  const JsonValue* value = Find(key);
  if (value == nullptr || !ok()) return std::nullopt;
  if (!value->is_number()) {
    Fail(PathOf(key), "expected a number, got " + JsonTypeName(*value));
    return std::nullopt;
  }
  return value->get<double>();
}

const JsonValue* JsonObject::Array(std::string_view key) {
  const JsonValue* value = Required(key);
  if (value == nullptr || !ok()) return nullptr;
  if (!value->is_array()) {
    Fail(PathOf(key), "expected an array, got " + JsonTypeName(*value));
    return nullptr;
  }
  return value;
}

const JsonValue* JsonObject::OptionalArray(std::string_view key) {
  if (!Has(key)) {
    Find(key);
    return nullptr;
  }
  return Array(key);
}

const JsonValue* JsonObject::OptionalObject(std::string_view key) {
  const JsonValue* value = Find(key);
  if (value == nullptr || !ok()) return nullptr;
  if (!value->is_object()) {
    Fail(PathOf(key), "expected an object, got " + JsonTypeName(*value));
    return nullptr;
  }
  return value;
}

int64_t JsonObject::FormatHeader(std::string_view format, std::string_view what,
                                 int64_t oldest, int64_t newest) {
  if (Has("format")) {
    const std::string actual = String("format");
    if (ok() && actual != format) {
      Fail(PathOf("format"), fmt::format("expected \"{}\", got \"{}\"", format, actual));
    }
  }
  const int64_t actual_version = Int("version");
  if (ok() && (actual_version < oldest || actual_version > newest)) {
    Fail(
        PathOf("version"),
        oldest == newest
            ? fmt::format("unsupported {} format version {} (this olla reads version {})",
                          what, actual_version, newest)
            : fmt::format(
                  "unsupported {} format version {} (this olla reads versions {} to {})",
                  what, actual_version, oldest, newest));
  }
  return ok() ? actual_version : 0;
}

Status JsonObject::Finish() {
  if (ok() && object_ != nullptr) {
    size_t i = 0;
    for (const auto& field : object_->get_ref<const JsonValue::object_t&>()) {
      if (!read_[i++]) {
        Fail(PathOf(field.first), "unknown field");
        break;
      }
    }
  }
  return status_;
}

}  // namespace olla
