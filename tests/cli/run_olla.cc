#include "run_olla.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

namespace olla::testing {

std::string SourcePath(const std::string& relative) {
  return std::string(OLLA_SOURCE_DIR) + "/" + relative;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

bool UpdateGolden() {
  const char* value = std::getenv("OLLA_UPDATE_GOLDEN");
  return value != nullptr && std::string(value) == "1";
}

CliResult RunOlla(const std::string& arguments) {
  static int counter = 0;
  const std::string base =
      (std::filesystem::temp_directory_path() /
       ("olla_cli_" + std::to_string(::getpid()) + "_" + std::to_string(counter++)))
          .string();
  const std::string command = "cd '" + std::string(OLLA_SOURCE_DIR) + "' && '" +
                              std::string(OLLA_BINARY) + "' " + arguments + " > '" +
                              base + ".out' 2> '" + base + ".err' < /dev/null";
  const int status = std::system(command.c_str());
  CliResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = ReadText(base + ".out");
  result.err = ReadText(base + ".err");
  std::filesystem::remove(base + ".out");
  std::filesystem::remove(base + ".err");
  return result;
}

std::vector<std::string> FilesEndingWith(const std::string& directory,
                                         const std::string& suffix) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(SourcePath(directory))) {
    const std::string name = entry.path().filename().string();
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      files.push_back(directory + "/" + name);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string CaseName(const std::string& path, const std::string& root) {
  std::string name = path.substr(root.size() + 1);
  name = name.substr(0, name.rfind('.'));
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

}  // namespace olla::testing
