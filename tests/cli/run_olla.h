// Runs the olla binary as a user would, from the source directory, and captures its
// exit code, stdout and stderr. Golden and error-case files are rewritten instead of
// compared when OLLA_UPDATE_GOLDEN=1 is set.
#pragma once

#include <string>
#include <vector>

namespace olla::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// `arguments` is a shell word list, for example "simulate examples/figure3.json".
CliResult RunOlla(const std::string& arguments);

std::string SourcePath(const std::string& relative);
std::string ReadText(const std::string& path);
void WriteText(const std::string& path, const std::string& text);
bool UpdateGolden();
// Sorted paths of files in `directory` (relative to the source) ending in `suffix`.
std::vector<std::string> FilesEndingWith(const std::string& directory,
                                         const std::string& suffix);
// A test name from a case file's path: "tests/errors/graph/cycle.json" -> "graph_cycle".
std::string CaseName(const std::string& path, const std::string& root);

}  // namespace olla::testing
