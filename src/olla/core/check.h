// OLLA_CHECK: aborts loudly when an internal invariant is broken.
//
// For bugs in olla only. Errors in the user's input are reported as Status values
// (status.h) and never reach a check. A failed check prints the file, line, condition
// and message on stderr and aborts, so the CLI turns it into exit code 3 only through
// the signal, never silently.
#pragma once

#include <string_view>

namespace olla::internal {
[[noreturn]] void CheckFailed(const char* file, int line, const char* condition,
                              std::string_view message);
}  // namespace olla::internal

#define OLLA_CHECK(condition, message)                                          \
  do {                                                                          \
    if (!(condition)) {                                                         \
      ::olla::internal::CheckFailed(__FILE__, __LINE__, #condition, (message)); \
    }                                                                           \
  } while (false)
