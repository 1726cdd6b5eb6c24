// The fixed name lists of olla (methods of each stage): membership and conversion, so
// each list is written once and every front end checks against the same one.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace olla {

template <size_t N>
bool IsOneOf(std::string_view name, const char* const (&names)[N]) {
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

template <size_t N>
std::vector<std::string> NameList(const char* const (&names)[N]) {
  return std::vector<std::string>(std::begin(names), std::end(names));
}

}  // namespace olla
