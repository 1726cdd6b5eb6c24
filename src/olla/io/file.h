// Whole-file reading and writing. Reading decompresses gzip transparently (by content,
// not by name); writing compresses when the path ends in ".gz". Errors name the file.
#pragma once

#include <cstddef>
#include <string>

#include "olla/core/status.h"

namespace olla {

// ReadFile leaves at least this many bytes of capacity past the text's end, so a parser
// that reads in 64-byte blocks (simdjson) parses it in place instead of copying it.
inline constexpr size_t kReadPadding = 64;

StatusOr<std::string> ReadFile(const std::string& path);
Status WriteFile(const std::string& path, const std::string& contents);

}  // namespace olla
