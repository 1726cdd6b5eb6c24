// The options of `olla optimize`, in one table: each with its name (a Python keyword
// argument and a JSON key), its command-line flag, its type and range, its default and
// its help. The CLI builds its flags from the table, Python its keyword arguments, and
// the plan's provenance and the JSON report record the values from it, so no option is
// listed twice and every front end validates it the same way.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "olla/core/budget.h"
#include "olla/core/status.h"
#include "olla/pipeline/optimize.h"

namespace olla {

// Everything one optimization is asked for: the pipeline's options and its limits.
struct OptimizeRequest {
  OptimizeOptions options;
  double time_limit_seconds = 10.0;
  std::optional<int64_t> work_limit;

  // The budget of the limits, starting now.
  Budget MakeBudget() const {
    return Budget::Of(time_limit_seconds, work_limit.value_or(Budget::kUnlimitedWork));
  }
};

enum class OptionType {
  kSeconds,  // A positive, finite number, at most kMaxSeconds (core/parse.h).
  kCount,    // An integer in [minimum, maximum].
  kChoice,   // One of `choices`.
  kSwitch,   // true or false; the flag (a "--no-..." flag) sets false.
};

using OptionValue = std::variant<double, int64_t, std::string, bool>;

struct OptionSpec {
  std::string name;  // "time_limit": the Python keyword and the JSON key.
  std::string flag;  // "--time-limit".
  OptionType type;
  std::string help;
  int64_t minimum = 0;               // kCount.
  std::vector<std::string> choices;  // kChoice.
  // Stores a value already parsed and validated: a double (kSeconds), an int64_t
  // (kCount), a string (kChoice) or a bool (kSwitch).
  std::function<void(OptimizeRequest&, const OptionValue&)> set;
  // The current value as text; "" when unset (no default).
  std::function<std::string(const OptimizeRequest&)> get;
  int64_t maximum = INT64_MAX;  // kCount.
};

const std::vector<OptionSpec>& OptimizeOptionTable();

// Parses `text` as option `name` and stores it. The error names nothing but the
// problem ("must be a positive number of seconds, got '0'"): the caller prefixes the
// option as its user wrote it (--time-limit, time_limit=).
Status SetOptimizeOption(OptimizeRequest& request, std::string_view name,
                         std::string_view text);

// Every option's name and current value, in table order (unset ones left out): the
// plan's provenance and the report's "options".
std::vector<std::pair<std::string, std::string>> OptimizeOptionValues(
    const OptimizeRequest& request);

// Optimize() as requested: with the request's options and `budget`, the option values
// recorded in the result (and in the plan's provenance) for the report.
StatusOr<OptimizeResult> Optimize(const Graph& graph, const OptimizeRequest& request,
                                  const Budget& budget);

}  // namespace olla
