// The subcommands of the olla command. Each Add*Command registers its options on the
// app and a callback that stores its exit code in `exit_code`.
#pragma once

#include <CLI/CLI.hpp>

#include "olla/core/status.h"

namespace olla::cli {

void AddSimulateCommand(CLI::App& app, int& exit_code);
void AddCheckCommand(CLI::App& app, int& exit_code);
void AddGenerateCommand(CLI::App& app, int& exit_code);
void AddPlaceCommand(CLI::App& app, int& exit_code);
void AddScheduleCommand(CLI::App& app, int& exit_code);
void AddOptimizeCommand(CLI::App& app, int& exit_code);
void AddTradeoffCommand(CLI::App& app, int& exit_code);

// Prints "olla: <message>" on stderr as one line; returns the exit code for `status`.
int ReportError(const Status& status);

}  // namespace olla::cli
