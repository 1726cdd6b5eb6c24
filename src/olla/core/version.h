// The olla version string, set by CMake from the project version.
#pragma once

namespace olla {
const char* Version();
}  // namespace olla
