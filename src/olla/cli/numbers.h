// CLI11 validators that parse numbers strictly (core/parse.h) before CLI11 converts
// them, so `--capacity 99999999999999999999999`, `--time-limit inf` or `--seed -1` are
// errors naming the flag instead of values clamped, wrapped or taken at once.
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "olla/core/parse.h"

namespace olla::cli {

inline CLI::Validator IntegerIn(int64_t minimum, int64_t maximum) {
  return CLI::Validator(
      [minimum, maximum](std::string& text) {
        const StatusOr<int64_t> value = ParseInteger(text, minimum, maximum);
        return value.ok() ? std::string() : value.status().message();
      },
      "INT");
}

inline CLI::Validator Seconds() {
  return CLI::Validator(
      [](std::string& text) {
        const StatusOr<double> value = ParseSeconds(text);
        return value.ok() ? std::string() : value.status().message();
      },
      "SECONDS");
}

}  // namespace olla::cli
