// JsonObject: typed, strict reading of one JSON object, with errors that name the JSON
// path ("ops[3].allocates[1]: expected an integer, got a string").
//
// It keeps the first error and returns defaults after it, so a reader can read every
// field in a straight line and check status() once. Finish() rejects fields that were
// never read: a misspelt optional field ("persistant") must not be ignored silently.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "olla/core/status.h"
#include "olla/io/json_text.h"

namespace olla {

// "a string", "an integer", ... for messages.
std::string JsonTypeName(const JsonValue& value);

class JsonObject {
 public:
  // Keeps a pointer to `value`, which must outlive the reader.
  JsonObject(const JsonValue& value, std::string path);
  JsonObject(JsonValue&& value, std::string path) = delete;

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  const std::string& path() const { return path_; }

  bool Has(std::string_view key) const;
  int64_t Int(std::string_view key);  // Required.
  int64_t Int(std::string_view key, int64_t fallback);
  std::string String(std::string_view key);  // Required.
  std::string String(std::string_view key, std::string fallback);
  bool Bool(std::string_view key, bool fallback);
  std::optional<double> OptionalNumber(std::string_view key);
  // Required array (nullptr after an error); optional array (nullptr when absent).
  const JsonValue* Array(std::string_view key);
  const JsonValue* OptionalArray(std::string_view key);
  const JsonValue* OptionalObject(std::string_view key);
  // Marks a field as known without reading it (free-form metadata).
  void Ignore(std::string_view key) { Find(key); }

  // Reads the header every olla file starts with: an optional "format" that must be
  // `format`, and a required "version" from `oldest` to `newest` (`what` names the
  // format in messages). Returns the version read (0 after an error).
  int64_t FormatHeader(std::string_view format, std::string_view what, int64_t oldest,
                       int64_t newest);
  int64_t FormatHeader(std::string_view format, std::string_view what, int64_t version) {
    return FormatHeader(format, what, version, version);
  }

  // Records an error at `path` (path of this object when empty) unless one is kept.
  void Fail(const std::string& path, const std::string& message);
  // Rejects fields no call above has read. Returns status().
  Status Finish();

  std::string PathOf(std::string_view key) const;

 private:
  const JsonValue* Find(std::string_view key);
  const JsonValue* Required(std::string_view key);

  const JsonValue* object_ = nullptr;
  std::string path_;
  std::vector<bool> read_;  // Per field, in file order: read by some call.
  Status status_;
};

// Reads an integer element of an array (path like "ops[3].uses[1]").
std::optional<int64_t> ReadIntElement(const JsonValue& value, const std::string& path,
                                      Status& status);

}  // namespace olla
