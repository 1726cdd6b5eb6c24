// The option registry: every option a command or Python takes, in one table of plain
// data, each with its name (a Python keyword argument, a JSON key, a provenance key), its
// command-line flag, its type and range, its help, and the field of OptimizeRequest it
// sets (whose default-constructed value is its default). `olla optimize` and `olla
// tradeoff` take every option (tradeoff all but the budget), `schedule`, `place` and
// `simulate` the ones they use, Python its keyword arguments; each front end builds its
// flags from the table, values are parsed and range-checked here only (Optimize()
// checks a request built in C++ against the same table), and the plan's provenance and
// the reports record the values by the table's names.
#pragma once

#include <cstdint>
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

// Where an option's value lives in a request: a plain function (captureless, so the
// table stays plain data) that points at the field, typed by what the field holds.
using OptionField =
    std::variant<double* (*)(OptimizeRequest&), int64_t* (*)(OptimizeRequest&),
                 std::optional<int64_t>* (*)(OptimizeRequest&),
                 int* (*)(OptimizeRequest&), std::string* (*)(OptimizeRequest&),
                 bool* (*)(OptimizeRequest&)>;

struct OptionSpec {
  std::string name;  // "time_limit": the Python keyword and the JSON key.
  std::string flag;  // "--time-limit".
  OptionType type;
  std::string help;
  OptionField field;
  int64_t minimum = 0;                    // kCount.
  int64_t maximum = INT64_MAX;            // kCount.
  std::vector<std::string> choices = {};  // kChoice.
};

const std::vector<OptionSpec>& OptimizeOptionTable();

// Parses `text` as option `name` and stores it. The error names nothing but the
// problem ("must be a positive number of seconds, got '0'"): the caller prefixes the
// option as its user wrote it (--time-limit, time_limit=).
Status SetOptimizeOption(OptimizeRequest& request, std::string_view name,
                         std::string_view text);

// The option called `name`; nullptr when there is none.
const OptionSpec* FindOption(std::string_view name);

// The option's value in `request` as text; "" when unset (no default).
std::string OptionText(const OptionSpec& spec, const OptimizeRequest& request);

// Every option's name and current value, in table order (unset ones left out), or only
// those named in `names`: the plan's provenance and the report's "options".
std::vector<std::pair<std::string, std::string>> OptimizeOptionValues(
    const OptimizeRequest& request, const std::vector<std::string>& names = {});

// Every option's value in `request` within the table's range and choices: for requests
// built in C++ rather than parsed. The error names the option first.
Status CheckOptionValues(const OptimizeRequest& request);

// Optimize() as requested: with the request's options and `budget`, the option values
// recorded in the result (and in the plan's provenance) for the report.
StatusOr<OptimizeResult> Optimize(const Graph& graph, const OptimizeRequest& request,
                                  const Budget& budget);

}  // namespace olla
