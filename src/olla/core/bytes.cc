#include "olla/core/bytes.h"

#include <array>
#include <cstdlib>

#include <fmt/format.h>

namespace olla {

std::string FormatBinaryUnits(int64_t bytes) {
  static constexpr std::array<const char*, 6> kUnits = {"KiB", "MiB", "GiB",
                                                        "TiB", "PiB", "EiB"};
  if (bytes > -1024 && bytes < 1024) return fmt::format("{} B", bytes);
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  value /= 1024.0;
  while (std::abs(value) >= 1024.0 && unit + 1 < kUnits.size()) {
    value /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

std::string FormatBytes(int64_t bytes) {
  if (bytes > -1024 && bytes < 1024) return fmt::format("{} B", bytes);
  return fmt::format("{} B ({})", bytes, FormatBinaryUnits(bytes));
}

std::string FormatPercent(double value, double reference) {
  if (reference == 0.0) return "n/a";
  return fmt::format("{:.1f}%", 100.0 * value / reference);
}

}  // namespace olla
