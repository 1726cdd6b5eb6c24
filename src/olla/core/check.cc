#include "olla/core/check.h"

#include <cstdio>
#include <cstdlib>

namespace olla::internal {

void CheckFailed(const char* file, int line, const char* condition,
                 std::string_view message) {
  std::fprintf(stderr, "olla: internal error at %s:%d: check '%s' failed: %.*s\n", file,
               line, condition, static_cast<int>(message.size()), message.data());
  std::abort();
}

}  // namespace olla::internal
