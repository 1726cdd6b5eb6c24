#include "olla/cli/table_flags.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace olla::cli {

void AddTableFlags(CLI::App& command, TableFlags& table,
                   const std::set<std::string>& left_out) {
  for (const OptionSpec& spec : OptimizeOptionTable()) {
    if (left_out.count(spec.name) > 0) continue;
    if (spec.type == OptionType::kSwitch) {
      table.flags[spec.name] = command.add_flag(spec.flag, spec.help);
      continue;
    }
    std::string help = spec.help;
    if (spec.type == OptionType::kChoice)
      help += fmt::format(": {}", fmt::join(spec.choices, ", "));
    if (const std::string fallback = spec.get(OptimizeRequest()); !fallback.empty())
      help += "; default " + fallback;
    table.flags[spec.name] = command.add_option(spec.flag, table.given[spec.name], help)
                                 ->type_name(spec.type == OptionType::kSeconds ? "SECONDS"
                                             : spec.type == OptionType::kChoice ? "METHOD"
                                                                                : "INT");
  }
}

StatusOr<OptimizeRequest> RequestOf(const TableFlags& table) {
  OptimizeRequest request;
  for (const OptionSpec& spec : OptimizeOptionTable()) {
    const auto flag = table.flags.find(spec.name);
    if (flag == table.flags.end() || flag->second->count() == 0) continue;
    const std::string text =
        spec.type == OptionType::kSwitch ? "false" : table.given.at(spec.name);
    if (Status status = SetOptimizeOption(request, spec.name, text); !status.ok())
      return status.WithContext("option " + spec.flag);
  }
  return request;
}

}  // namespace olla::cli
