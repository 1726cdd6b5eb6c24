// The olla command's exit codes (documented in README.md).
#pragma once

#include "olla/core/status.h"

namespace olla::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitBadInput =
      1,            // Bad input or usage: a file, an option, a graph or a plan is wrong.
  kExitNoPlan = 2,  // No plan within the given limits or budget.
  kExitInternal = 3,  // A bug in olla.
};

inline int ExitCodeFor(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk:
      return kExitOk;
    case StatusCode::kInvalidInput:
    case StatusCode::kNotFound:
      return kExitBadInput;
    case StatusCode::kInternal:
      return kExitInternal;
  }
  return kExitInternal;
}

}  // namespace olla::cli
