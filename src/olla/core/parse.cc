#include "olla/core/parse.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace olla {

std::string QuoteForMessage(std::string_view text) {
  return "'" + OneLine(std::string(text.substr(0, 40))) +
         (text.size() > 40 ? "...'" : "'");
}

StatusOr<int64_t> ParseInteger(std::string_view text, int64_t minimum, int64_t maximum) {
  int64_t value = 0;
  const auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty() ||
      value < minimum || value > maximum) {
    return InvalidInput(fmt::format("must be an integer from {} to {}, got {}", minimum,
                                    maximum, QuoteForMessage(text)));
  }
  return value;
}

StatusOr<double> ParseSeconds(std::string_view text) {
  double value = 0;
  const auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty() ||
      !std::isfinite(value) || value <= 0 || value > kMaxSeconds) {
    return InvalidInput(
        fmt::format("must be a positive number of seconds, at most {:g}, got {}",
                    kMaxSeconds, QuoteForMessage(text)));
  }
  return value;
}

}  // namespace olla
