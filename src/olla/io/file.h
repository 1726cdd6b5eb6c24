// Whole-file reading and writing. Reading decompresses gzip transparently (by content,
// not by name); writing compresses when the path ends in ".gz". Errors name the file.
#pragma once

#include <string>

#include "olla/core/status.h"

namespace olla {

StatusOr<std::string> ReadFile(const std::string& path);
Status WriteFile(const std::string& path, const std::string& contents);

}  // namespace olla
