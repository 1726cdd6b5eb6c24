// Status and StatusOr<T>: how errors cross library boundaries in olla.
//
// A Status is either ok or carries a code and a one-line message that names what is
// wrong and where (file, JSON path, op, buffer). No exception escapes the library:
// user errors travel as values, and broken internal invariants abort (see check.h).
// What an optimizer concludes (optimal, infeasible, limit reached) is a result, never
// a Status error.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "olla/core/check.h"

namespace olla {

enum class StatusCode {
  kOk,
  kInvalidInput,  // The user's input (file, option, graph, plan) is wrong.
  kNotFound,      // A file or named thing does not exist.
  kInternal,      // A bug in olla, reported rather than crashing.
};

// `text` as one line of plain text: control characters (from names in a graph or a
// CSV: newlines, carriage returns, escape sequences, NUL) become \xNN, so that a
// message can neither break its line nor drive a terminal.
inline std::string OneLine(std::string text) {
  if (std::none_of(text.begin(), text.end(), [](char c) {
        return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
      })) {
    return text;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size() + 8);
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    } else {
      out += c;
    }
  }
  return out;
}

class [[nodiscard]] Status {
 public:
  Status() = default;
  // The message is kept as one line (OneLine), whatever user text it quotes.
  Status(StatusCode code, std::string message)
      : code_(code), message_(OneLine(std::move(message))) {}

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message is "context: message" (for adding the file name).
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    return Status(code_, context + ": " + message_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status OkStatus() { return Status(); }
inline Status InvalidInput(std::string message) {
  return Status(StatusCode::kInvalidInput, std::move(message));
}
inline Status NotFound(std::string message) {
  return Status(StatusCode::kNotFound, std::move(message));
}
inline Status Internal(std::string message) {
  return Status(StatusCode::kInternal, std::move(message));
}

// Either a value or a non-ok Status.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design.
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design.
    OLLA_CHECK(!status_.ok(), "StatusOr built from an ok Status without a value");
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  T& value() & {
    OLLA_CHECK(ok(), "value() on an error StatusOr: " + status_.message());
    return *value_;
  }
  const T& value() const& {
    OLLA_CHECK(ok(), "value() on an error StatusOr: " + status_.message());
    return *value_;
  }
  T&& value() && {
    OLLA_CHECK(ok(), "value() on an error StatusOr: " + status_.message());
    return std::move(*value_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace olla

// Returns early from the enclosing function when `expr` (a Status) is not ok.
#define OLLA_RETURN_IF_ERROR(expr)               \
  do {                                           \
    ::olla::Status olla_status_ = (expr);        \
    if (!olla_status_.ok()) return olla_status_; \
  } while (false)

#define OLLA_CONCAT_INNER_(a, b) a##b
#define OLLA_CONCAT_(a, b) OLLA_CONCAT_INNER_(a, b)

// `OLLA_ASSIGN_OR_RETURN(auto x, StatusOrExpr());` declares x from the value or returns
// the error.
#define OLLA_ASSIGN_OR_RETURN(lhs, expr) \
  OLLA_ASSIGN_OR_RETURN_IMPL_(OLLA_CONCAT_(olla_statusor_, __LINE__), lhs, expr)
#define OLLA_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()
