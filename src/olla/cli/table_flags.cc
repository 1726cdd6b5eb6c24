#include "olla/cli/table_flags.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace olla::cli {
namespace {

const std::string& FlagOf(const TableOption& option) {
  return option.flag.empty() ? FindOption(option.name)->flag : option.flag;
}

}  // namespace

std::vector<TableOption> AllTableOptionsBut(const std::vector<std::string>& left_out) {
  std::vector<TableOption> options;
  for (const OptionSpec& spec : OptimizeOptionTable()) {
    if (std::find(left_out.begin(), left_out.end(), spec.name) == left_out.end())
      options.push_back({spec.name, ""});
  }
  return options;
}

void AddTableFlags(CLI::App& command, TableFlags& table, std::vector<TableOption> options,
                   OptimizeRequest defaults) {
  table.options = options.empty() ? AllTableOptionsBut({}) : std::move(options);
  table.defaults = std::move(defaults);
  for (const TableOption& option : table.options) {
    const OptionSpec& spec = *FindOption(option.name);
    if (spec.type == OptionType::kSwitch) {
      table.flags[spec.name] = command.add_flag(FlagOf(option), spec.help);
      continue;
    }
    std::string help = spec.help;
    if (spec.type == OptionType::kChoice)
      help += fmt::format(": {}", fmt::join(spec.choices, ", "));
    if (const std::string fallback = OptionText(spec, table.defaults); !fallback.empty())
      help += "; default " + fallback;
    table.flags[spec.name] =
        command.add_option(FlagOf(option), table.given[spec.name], help)
            ->type_name(spec.type == OptionType::kSeconds  ? "SECONDS"
                        : spec.type == OptionType::kChoice ? "METHOD"
                                                           : "INT");
  }
}

StatusOr<OptimizeRequest> RequestOf(const TableFlags& table) {
  OptimizeRequest request = table.defaults;
  for (const TableOption& option : table.options) {
    const OptionSpec& spec = *FindOption(option.name);
    if (table.flags.at(spec.name)->count() == 0) continue;
    // A switch's flag turns it off (--no-recompute).
    const std::string text =
        spec.type == OptionType::kSwitch ? "false" : table.given.at(spec.name);
    if (Status status = SetOptimizeOption(request, spec.name, text); !status.ok())
      return status.WithContext("option " + FlagOf(option));
  }
  return request;
}

std::vector<std::string> TableOptionNames(const TableFlags& table) {
  std::vector<std::string> names;
  for (const TableOption& option : table.options) names.push_back(option.name);
  return names;
}

}  // namespace olla::cli
