// Byte counts: 64-bit signed arithmetic that reports overflow, and human-readable
// formatting. Every size in olla is an int64_t number of bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace olla {

// a + b, or nullopt when the sum does not fit in int64_t.
inline std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
  return sum;
}

// `value` (>= 0) rounded up to a multiple of `multiple` (> 0), or nullopt when that does
// not fit in int64_t.
inline std::optional<int64_t> CheckedRoundUp(int64_t value, int64_t multiple) {
  const int64_t remainder = value % multiple;
  return remainder == 0 ? std::optional<int64_t>(value)
                        : CheckedAdd(value, multiple - remainder);
}

// How far a result lies above its proven lower bound, as a fraction of the bound:
// (value - bound) / bound; 0 when the bound is 0. The one definition of "gap" in olla,
// for orders (peak vs bound) and placements (arena vs bound) alike.
inline double Gap(int64_t value, int64_t bound) {
  return bound <= 0 ? 0.0
                    : (static_cast<double>(value) - static_cast<double>(bound)) /
                          static_cast<double>(bound);
}

// The share of `reference` that `value` saves: (reference - value) / reference; 0 when
// the reference is 0. How reports say "x % below eager".
inline double Saving(int64_t value, int64_t reference) {
  return reference <= 0 ? 0.0
                        : (static_cast<double>(reference) - static_cast<double>(value)) /
                              static_cast<double>(reference);
}

// "62914560 B (60.0 MiB)"-style text: exact bytes, then binary units to one decimal.
std::string FormatBytes(int64_t bytes);

// Binary units only ("60.0 MiB", "512 B").
std::string FormatBinaryUnits(int64_t bytes);

// value / reference as a percentage with one decimal ("12.5%"); "n/a" when reference
// is zero.
std::string FormatPercent(double value, double reference);

}  // namespace olla
