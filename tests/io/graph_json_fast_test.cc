#include "olla/io/graph_json_fast.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "olla/io/file.h"
#include "olla/io/graph_json.h"

namespace olla {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> FilesIn(const std::string& directory, const std::string& suffix) {
  std::vector<fs::path> files;
  for (const auto& entry :
       fs::directory_iterator(std::string(OLLA_SOURCE_DIR) + directory)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Every graph olla ships, examples and the zoo: the fast path reads it, and reads what
// the strict reader reads.
TEST(GraphJsonFastTest, ReadsEveryShippedGraphAsTheStrictReaderDoes) {
  std::vector<fs::path> files = FilesIn("/examples", ".json");
  for (const fs::path& path : FilesIn("/models", ".json.gz")) files.push_back(path);
  int read = 0;
  for (const fs::path& path : files) {
    const StatusOr<std::string> text = ReadFile(path.string());
    ASSERT_TRUE(text.ok()) << text.status().message();
    if (text->find("\"olla.graph\"") == std::string::npos) continue;  // Plans, pins.
    const std::optional<Graph> fast = FastParseGraph(*text);
    ASSERT_TRUE(fast.has_value()) << path;
    const StatusOr<Graph> strict = ParseGraphStrict(*text);
    ASSERT_TRUE(strict.ok()) << path << ": " << strict.status().message();
    EXPECT_EQ(GraphToJson(*fast), GraphToJson(*strict)) << path;
    ++read;
  }
  EXPECT_GT(read, 70);
}

// Every malformed graph of tests/errors: the fast path refuses it, so the strict
// reader gives the error.
TEST(GraphJsonFastTest, RefusesEveryMalformedGraph) {
  int refused = 0;
  for (const fs::path& path : FilesIn("/tests/errors/graph", ".json")) {
    const StatusOr<std::string> text = ReadFile(path.string());
    if (!text.ok()) continue;
    EXPECT_FALSE(FastParseGraph(*text).has_value()) << path;
    EXPECT_FALSE(ParseGraph(*text).ok()) << path;
    ++refused;
  }
  EXPECT_GT(refused, 30);
}

TEST(GraphJsonFastTest, RefusesWhatTheStrictReaderWouldQuestion) {
  const std::string graph =
      R"({"version": 1, "buffers": [{"id": 0, "size": 4}], "ops": [{"id": 0, "allocates": [0]}]})";
  ASSERT_TRUE(FastParseGraph(graph).has_value());
  const std::vector<std::string> questionable = {
      // A repeated field: a document would keep the second.
      R"({"version": 1, "buffers": [{"id": 0, "size": 4, "size": 8}], "ops": []})",
      // An integer above INT64_MAX, a fractional size, an unknown field.
      R"({"version": 1, "buffers": [{"id": 9223372036854775808, "size": 4}], "ops": []})",
      R"({"version": 1, "buffers": [{"id": 0, "size": 4.0}], "ops": []})",
      R"({"version": 1, "buffers": [{"id": 0, "size": 4, "persistant": true}], "ops": []})",
  };
  for (const std::string& text : questionable) {
    EXPECT_FALSE(FastParseGraph(text).has_value()) << text;
  }
}

// Ops listed before the buffers they name: both readers read it, alike.
TEST(GraphJsonFastTest, ReadsOpsListedBeforeTheirBuffers) {
  const std::string text =
      R"({"version": 1, "ops": [{"id": 0, "allocates": [0]}], "buffers": [{"id": 0, "size": 4}]})";
  const std::optional<Graph> fast = FastParseGraph(text);
  const StatusOr<Graph> strict = ParseGraphStrict(text);
  ASSERT_TRUE(fast.has_value() && strict.ok());
  EXPECT_EQ(GraphToJson(*fast), GraphToJson(*strict));
}

}  // namespace
}  // namespace olla
