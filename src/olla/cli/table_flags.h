// The option table's flags (pipeline/option_table.h) on a command: each option of the
// table becomes a flag with its help, type and default, and the flags given become an
// OptimizeRequest, validated by the table. `olla optimize` and `olla tradeoff` share it.
#pragma once

#include <map>
#include <set>
#include <string>

#include <CLI/CLI.hpp>

#include "olla/core/status.h"
#include "olla/pipeline/option_table.h"

namespace olla::cli {

struct TableFlags {
  std::map<std::string, std::string> given;  // As typed, by option name.
  std::map<std::string, CLI::Option*> flags;
};

// Adds a flag per option of the table but those named in `left_out`.
void AddTableFlags(CLI::App& command, TableFlags& table,
                   const std::set<std::string>& left_out = {});

// The request of the flags given; an error names the flag.
StatusOr<OptimizeRequest> RequestOf(const TableFlags& table);

}  // namespace olla::cli
