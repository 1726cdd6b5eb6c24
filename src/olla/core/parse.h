// Strict parsing of the numbers users type (options, flags, keyword arguments): the
// whole text must be the number, in range, with no rounding, wrapping or clamping.
// Errors say what was expected and quote what came, escaped so a message stays one
// line; callers prefix the option's name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "olla/core/status.h"

namespace olla {

// The longest time limit accepted: about 31 years, far beyond any run, and short enough
// that a deadline never overflows the clock.
inline constexpr double kMaxSeconds = 1e9;

// An integer in [minimum, maximum], decimal, nothing around it.
StatusOr<int64_t> ParseInteger(std::string_view text, int64_t minimum, int64_t maximum);

// A positive, finite number of seconds, at most kMaxSeconds.
StatusOr<double> ParseSeconds(std::string_view text);

// `text` in quotes for a message: at most 40 characters, control characters escaped.
std::string QuoteForMessage(std::string_view text);

}  // namespace olla
