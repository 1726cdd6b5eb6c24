#include "olla/pipeline/option_table.h"

#include <algorithm>
#include <type_traits>

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

std::vector<OptionSpec> BuildTable() {
  using R = OptimizeRequest;
  return {
      {.name = "time_limit",
       .flag = "--time-limit",
       .type = OptionType::kSeconds,
       .help = "Wall-clock seconds for the whole run (loading included); the searches "
               "return their best so far",
       .field = +[](R& r) { return &r.time_limit_seconds; }},
      {.name = "work_limit",
       .flag = "--work-limit",
       .type = OptionType::kCount,
       .help = "Deterministic work units (search nodes, moves, ILP nodes) for the whole "
               "run: the same limit gives the same result on any machine",
       .field = +[](R& r) { return &r.work_limit; }},
      {.name = "memory_budget",
       .flag = "--memory-budget",
       .type = OptionType::kCount,
       .help = "Bytes the activation arena must fit in: order and placement first, then "
               "recomputation (no plan when nothing fits)",
       .field = +[](R& r) { return &r.options.memory_budget; }},
      {.name = "recompute",
       .flag = "--no-recompute",
       .type = OptionType::kSwitch,
       .help = "With --memory-budget, recompute activations when order and placement "
               "alone do not fit (the flag forbids it: no plan then)",
       .field = +[](R& r) { return &r.options.recompute; }},
      {.name = "alignment",
       .flag = "--align",
       .type = OptionType::kCount,
       .help = "Align every offset and round every size up to this many bytes",
       .field = +[](R& r) { return &r.options.alignment; },
       .minimum = 1,
       .maximum = kMaxAlignment},
      {.name = "schedule_method",
       .flag = "--schedule-method",
       .type = OptionType::kChoice,
       .help = "Scheduling method (docs/schedule.md); joint, olla optimize's only: "
               "auto, then OLLA's joint ILP of order and addresses from that plan, on "
               "graphs small enough",
       .field = +[](R& r) { return &r.options.schedule.method; },
       .choices = ScheduleMethods()},
      {.name = "placement_method",
       .flag = "--placement-method",
       .type = OptionType::kChoice,
       .help = "Placement method (README, olla place)",
       .field = +[](R& r) { return &r.options.placement_method; },
       .choices = NameList(kPlacementMethods)},
      {.name = "updates_asap",
       .flag = "--no-updates-asap",
       .type = OptionType::kSwitch,
       .help = "Run optimizer updates as soon as their gradient is ready (the flag lets "
               "them run at any time)",
       .field = +[](R& r) { return &r.options.schedule.rules.updates_asap; }},
      {.name = "threads",
       .flag = "--threads",
       .type = OptionType::kCount,
       .help = "Searches run at once (results do not depend on it)",
       .field = +[](R& r) { return &r.options.threads; },
       .minimum = 1,
       .maximum = 256},  // An int, and far beyond any machine's worth.
  };
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

const OptionSpec* FindOption(std::string_view name) {
  for (const OptionSpec& spec : OptimizeOptionTable())
    if (spec.name == name) return &spec;
  return nullptr;
}

std::string OptionText(const OptionSpec& spec, const OptimizeRequest& request) {
  // The fields are only read here.
  OptimizeRequest& fields = const_cast<OptimizeRequest&>(request);
  return std::visit(
      [&](auto field) -> std::string {
        const auto& value = *field(fields);
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, std::string>) {
          return value;
        } else if constexpr (std::is_same_v<T, bool>) {
          return value ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::optional<int64_t>>) {
          return value ? std::to_string(*value) : std::string();
        } else {
          return fmt::format("{}", value);
        }
      },
      spec.field);
}

Status SetOptimizeOption(OptimizeRequest& request, std::string_view name,
                         std::string_view text) {
  const OptionSpec* spec = FindOption(name);
  if (spec == nullptr) {
    std::vector<std::string> names;
    for (const OptionSpec& s : OptimizeOptionTable()) names.push_back(s.name);
    return InvalidInput(
        fmt::format("unknown option (the options are {})", fmt::join(names, ", ")));
  }
  OLLA_ASSIGN_OR_RETURN(const OptionValue value, Parse(*spec, text));
  std::visit(
      [&](auto field) {
        auto& stored = *field(request);
        using T = std::decay_t<decltype(stored)>;
        if constexpr (std::is_same_v<T, double>) {
          stored = std::get<double>(value);
        } else if constexpr (std::is_same_v<T, std::string>) {
          stored = std::get<std::string>(value);
        } else if constexpr (std::is_same_v<T, bool>) {
          stored = std::get<bool>(value);
        } else {  // int64_t, its optional, or an int the range keeps in bounds.
          stored = static_cast<std::decay_t<decltype(*field(request))>>(
              std::get<int64_t>(value));
        }
      },
      spec->field);
  return OkStatus();
}

std::vector<std::pair<std::string, std::string>> OptimizeOptionValues(
    const OptimizeRequest& request, const std::vector<std::string>& names) {
  std::vector<std::pair<std::string, std::string>> values;
  for (const OptionSpec& spec : OptimizeOptionTable()) {
    if (!names.empty() && std::find(names.begin(), names.end(), spec.name) == names.end())
      continue;
    std::string value = OptionText(spec, request);
    if (!value.empty()) values.emplace_back(spec.name, std::move(value));
  }
  return values;
}

Status CheckOptionValues(const OptimizeRequest& request) {
  for (const OptionSpec& spec : OptimizeOptionTable()) {
    const std::string value = OptionText(spec, request);
    if (value.empty()) continue;
    if (Status status = Parse(spec, value).status(); !status.ok())
      return status.WithContext(spec.name);
  }
  return OkStatus();
}

StatusOr<OptimizeResult> Optimize(const Graph& graph, const OptimizeRequest& request,
                                  const Budget& budget) {
  OLLA_ASSIGN_OR_RETURN(OptimizeResult result, Optimize(graph, request.options, budget));
  result.options = OptimizeOptionValues(request);
  if (result.plan) result.plan->provenance.options = result.options;
  return result;
}

}  // namespace olla
