// The option table's flags (pipeline/option_table.h) on a command: each option the
// command takes becomes a flag with the table's help, type and range, and the flags
// given become an OptimizeRequest, validated by the table. Every command's common
// options (time and work limits, methods, alignment, threads) come from here.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "olla/core/status.h"
#include "olla/pipeline/option_table.h"

namespace olla::cli {

// One option of the table on a command: its name, and the flag it takes there when the
// command's own context names it more simply (olla schedule's --method is the table's
// schedule_method); "" keeps the table's flag.
struct TableOption {
  std::string name;
  std::string flag;
};

// Every option of the table but those named.
std::vector<TableOption> AllTableOptionsBut(const std::vector<std::string>& left_out);

struct TableFlags {
  OptimizeRequest defaults;
  std::vector<TableOption> options;          // What the command takes, in table order.
  std::map<std::string, std::string> given;  // As typed, by option name.
  std::map<std::string, CLI::Option*> flags;
};

// Adds a flag for each of `options` (every option of the table when empty), their
// defaults (shown in the help) those of `defaults`.
void AddTableFlags(CLI::App& command, TableFlags& table,
                   std::vector<TableOption> options = {}, OptimizeRequest defaults = {});

// The request of the flags given, over the defaults; an error names the flag.
StatusOr<OptimizeRequest> RequestOf(const TableFlags& table);

// The names of the options the command takes (for its provenance).
std::vector<std::string> TableOptionNames(const TableFlags& table);

}  // namespace olla::cli
