#include "olla/pipeline/option_table.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "olla/core/limits.h"
#include "olla/core/names.h"
#include "olla/core/parse.h"
#include "olla/placement/place.h"
#include "olla/schedule/scheduler.h"

namespace olla {
namespace {

// kScheduleMethods and the pipeline's own.
std::vector<std::string> ScheduleMethods() {
  std::vector<std::string> methods = NameList(kScheduleMethods);
  methods.push_back(kJointMethod);
  return methods;
}

std::string Text(int64_t value) { return std::to_string(value); }
std::string Text(double value) { return fmt::format("{}", value); }

std::vector<OptionSpec> BuildTable() {
  std::vector<OptionSpec> table;
  table.push_back(
      {"time_limit",
       "--time-limit",
       OptionType::kSeconds,
       "Wall-clock seconds for the whole run (loading included); the searches return "
       "their best so far",
       0,
       {},
       [](OptimizeRequest& r, const OptionValue& v) {
         r.time_limit_seconds = std::get<double>(v);
       },
       [](const OptimizeRequest& r) { return Text(r.time_limit_seconds); }});
  table.push_back(
      {"work_limit",
       "--work-limit",
       OptionType::kCount,
       "Deterministic work units (search nodes, moves, ILP nodes) for the whole run: the "
       "same limit gives the same plan on any machine",
       0,
       {},
       [](OptimizeRequest& r, const OptionValue& v) {
         r.work_limit = std::get<int64_t>(v);
       },
       [](const OptimizeRequest& r) {
         return r.work_limit ? Text(*r.work_limit) : std::string();
       }});
  table.push_back(
      {"memory_budget",
       "--memory-budget",
       OptionType::kCount,
       "Bytes the activation arena must fit in: order and placement first, then "
       "recomputation (no plan when nothing fits)",
       0,
       {},
       [](OptimizeRequest& r, const OptionValue& v) {
         r.options.memory_budget = std::get<int64_t>(v);
       },
       [](const OptimizeRequest& r) {
         return r.options.memory_budget ? Text(*r.options.memory_budget) : std::string();
       }});
  table.push_back(
      {"recompute",
       "--no-recompute",
       OptionType::kSwitch,
       "With --memory-budget, recompute activations when order and placement alone do "
       "not fit (the flag forbids it: no plan then)",
       0,
       {},
       [](OptimizeRequest& r, const OptionValue& v) {
         r.options.recompute = std::get<bool>(v);
       },
       [](const OptimizeRequest& r) {
         return std::string(r.options.recompute ? "true" : "false");
       }});
  table.push_back({"alignment",
                   "--align",
                   OptionType::kCount,
                   "Align every offset and round every size up to this many bytes",
                   1,
                   {},
                   [](OptimizeRequest& r, const OptionValue& v) {
                     r.options.alignment = std::get<int64_t>(v);
                   },
                   [](const OptimizeRequest& r) { return Text(r.options.alignment); }});
  table.back().maximum = kMaxAlignment;
  table.push_back(
      {"schedule_method", "--schedule-method", OptionType::kChoice,
       "Scheduling method (docs/schedule.md; joint: auto, then OLLA's joint ILP of order "
       "and addresses from that plan, on graphs small enough)",
       0, ScheduleMethods(),
       [](OptimizeRequest& r, const OptionValue& v) {
         r.options.schedule.method = std::get<std::string>(v);
       },
       [](const OptimizeRequest& r) { return r.options.schedule.method; }});
  table.push_back({"placement_method", "--placement-method", OptionType::kChoice,
                   "Placement method (olla place --help)", 0, NameList(kPlacementMethods),
                   [](OptimizeRequest& r, const OptionValue& v) {
                     r.options.placement_method = std::get<std::string>(v);
                   },
                   [](const OptimizeRequest& r) { return r.options.placement_method; }});
  table.push_back(
      {"updates_asap",
       "--no-updates-asap",
       OptionType::kSwitch,
       "Run optimizer updates as soon as their gradient is ready (the flag lets them run "
       "at any time)",
       0,
       {},
       [](OptimizeRequest& r, const OptionValue& v) {
         r.options.schedule.rules.updates_asap = std::get<bool>(v);
       },
       [](const OptimizeRequest& r) {
         return std::string(r.options.schedule.rules.updates_asap ? "true" : "false");
       }});
  table.push_back(
      {"threads",
       "--threads",
       OptionType::kCount,
       "Searches run at once (results do not depend on it)",
       1,
       {},
       [](OptimizeRequest& r, const OptionValue& v) {
         r.options.threads = static_cast<int>(std::get<int64_t>(v));
       },
       [](const OptimizeRequest& r) { return Text(int64_t{r.options.threads}); }});
  table.back().maximum = 256;  // An int, and far beyond any machine's worth.
  return table;
}

// The value `text` gives option `spec`, or an error.
StatusOr<OptionValue> Parse(const OptionSpec& spec, std::string_view text) {
  switch (spec.type) {
    case OptionType::kSeconds: {
      OLLA_ASSIGN_OR_RETURN(const double seconds, ParseSeconds(text));
      return OptionValue(seconds);
    }
    case OptionType::kCount: {
      OLLA_ASSIGN_OR_RETURN(const int64_t count,
                            ParseInteger(text, spec.minimum, spec.maximum));
      return OptionValue(count);
    }
    case OptionType::kChoice: {
      if (std::find(spec.choices.begin(), spec.choices.end(), text) ==
          spec.choices.end()) {
        return InvalidInput(fmt::format("must be one of {}, got {}",
                                        fmt::join(spec.choices, ", "),
                                        QuoteForMessage(text)));
      }
      return OptionValue(std::string(text));
    }
    case OptionType::kSwitch:
      if (text != "true" && text != "false")
        return InvalidInput(
            fmt::format("must be true or false, got {}", QuoteForMessage(text)));
      return OptionValue(text == "true");
  }
  return Internal("unknown option type");
}

}  // namespace

const std::vector<OptionSpec>& OptimizeOptionTable() {
  static const std::vector<OptionSpec> table = BuildTable();
  return table;
}

Status SetOptimizeOption(OptimizeRequest& request, std::string_view name,
                         std::string_view text) {
  const std::vector<OptionSpec>& table = OptimizeOptionTable();
  const auto spec = std::find_if(table.begin(), table.end(),
                                 [&](const OptionSpec& s) { return s.name == name; });
  if (spec == table.end()) {
    std::vector<std::string> names;
    for (const OptionSpec& s : table) names.push_back(s.name);
    return InvalidInput(
        fmt::format("unknown option (the options are {})", fmt::join(names, ", ")));
  }
  OLLA_ASSIGN_OR_RETURN(const OptionValue value, Parse(*spec, text));
  spec->set(request, value);
  return OkStatus();
}

std::vector<std::pair<std::string, std::string>> OptimizeOptionValues(
    const OptimizeRequest& request) {
  std::vector<std::pair<std::string, std::string>> values;
  for (const OptionSpec& spec : OptimizeOptionTable()) {
    std::string value = spec.get(request);
    if (!value.empty()) values.emplace_back(spec.name, std::move(value));
  }
  return values;
}

StatusOr<OptimizeResult> Optimize(const Graph& graph, const OptimizeRequest& request,
                                  const Budget& budget) {
  OLLA_ASSIGN_OR_RETURN(OptimizeResult result, Optimize(graph, request.options, budget));
  result.options = OptimizeOptionValues(request);
  if (result.plan) result.plan->provenance.options = result.options;
  return result;
}

}  // namespace olla
