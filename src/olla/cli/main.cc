// The olla command: parses the command line with CLI11 and dispatches to a subcommand.
// Every failure ends in one line on stderr and a documented exit code (exit_codes.h).
#include <csignal>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string_view>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include "olla/cli/commands.h"
#include "olla/cli/exit_codes.h"
#include "olla/core/version.h"
#include "olla/solver/isolated_solver.h"

namespace olla::cli {

int ReportError(const Status& status) {
  std::cerr << "olla: " << status.message() << "\n";  // One line (core/status.h).
  return ExitCodeFor(status);
}

namespace {

// A failed internal check has printed its message; exit with the documented code.
void OnAbort(int) { _exit(kExitInternal); }

// The hidden first argument that makes olla a MILP worker (solver/isolated_solver.h):
// how a solve from a threaded olla gets its own process.
constexpr const char* kMilpWorker = "__milp-worker";

int Main(int argc, char** argv) {
  std::signal(SIGABRT, OnAbort);
  if (argc == 2 && std::string_view(argv[1]) == kMilpWorker) return RunMilpWorker();
  SetMilpWorkerCommand({"/proc/self/exe", kMilpWorker});
  CLI::App app(
      "olla: memory planning for neural-network training graphs.\n"
      "Orders the ops of one training step and places every tensor in one arena.",
      "olla");
  app.set_version_flag("--version", std::string("olla ") + Version());
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 success; 1 bad input or usage; 2 no plan within the given limits;\n"
      "3 internal error. Formats: docs/graph-format.md, docs/plan-format.md.");
  int exit_code = kExitOk;
  AddOptimizeCommand(app, exit_code);
  AddTradeoffCommand(app, exit_code);
  AddSimulateCommand(app, exit_code);
  AddCheckCommand(app, exit_code);
  AddScheduleCommand(app, exit_code);
  AddPlaceCommand(app, exit_code);
  AddGenerateCommand(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "olla: " << OneLine(e.what()) << " (see olla --help)\n";
    return kExitBadInput;
  }
  return exit_code;
}

}  // namespace
}  // namespace olla::cli

int main(int argc, char** argv) {
  try {
    return olla::cli::Main(argc, argv);
  } catch (const std::bad_alloc&) {
    std::cerr << "olla: out of memory\n";
    return olla::cli::kExitInternal;
  } catch (const std::exception& e) {
    std::cerr << "olla: internal error: " << e.what() << "\n";
    return olla::cli::kExitInternal;
  }
}
