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

// Fields in any order, metadata of every JSON type, ids far apart (the index's map)
// and keys written with escapes: what the fast path reads, it reads as the strict
// reader does; what it refuses, the strict reader reads or explains.
TEST(GraphJsonFastTest, AgreesWithTheStrictReaderOnEveryLayout) {
  const std::string buffers =
      R"("buffers": [{"id": 0, "size": 4}, {"id": 1, "size": 8}])";
  const std::string ops =
      R"("ops": [{"id": 5, "allocates": [0]}, {"id": 9, "allocates": [1], "uses": [0]}])";
  const std::string precedence = R"("precedence": [[5, 9]])";
  const std::vector<std::string> texts = {
      "{\"version\": 1, " + buffers + ", " + ops + ", " + precedence + "}",
      "{" + precedence + ", \"version\": 1, " + ops + ", " + buffers + "}",
      "{" + ops + ", " + precedence + ", " + buffers + ", \"version\": 1}",
      R"({"version": 1, "metadata": {"a": [1, -2.5e3, "x\u00e9", true, false, null, {}]},
          "buffers": [{"id": 4000000000, "size": 4, "metadata": [[[]]]}],
          "ops": [{"id": 123456789012, "allocates": [4000000000], "metadata": null}]})",
      R"({"version": 1, "buffers": [{"i\u0064": 0, "size": 4}], "ops": [{"id": 0}]})",
  };
  int fast_read = 0;
  for (const std::string& text : texts) {
    const StatusOr<Graph> strict = ParseGraphStrict(text);
    ASSERT_TRUE(strict.ok()) << text << ": " << strict.status().message();
    if (const std::optional<Graph> fast = FastParseGraph(text)) {
      EXPECT_EQ(GraphToJson(*fast), GraphToJson(*strict)) << text;
      ++fast_read;
    }
  }
  EXPECT_EQ(fast_read,
            4);  // All but the escaped key, which only the strict reader reads.
}

// The On-Demand parser checks only what it reads: every part of the text must be read,
// and nothing may follow the top-level object.
TEST(GraphJsonFastTest, RefusesMalformedTextAnywhere) {
  const std::string graph =
      R"({"version": 1, "buffers": [{"id": 0, "size": 4}], "ops": [{"id": 0, "allocates": [0]}]})";
  ASSERT_TRUE(FastParseGraph(graph).has_value());
  const std::vector<std::string> malformed = {
      graph + " x",
      graph + "}",
      graph + graph,
      R"({"version": 1, "metadata": [1,], "buffers": [], "ops": [{"id": 0}]})",
      R"({"version": 1, "metadata": {"a" 1}, "buffers": [], "ops": [{"id": 0}]})",
      R"({"version": 1, "metadata": "\q", "buffers": [], "ops": [{"id": 0}]})",
      R"({"version": 1, "metadata": tru, "buffers": [], "ops": [{"id": 0}]})",
      R"({"version": 1, "buffers": [], "ops": [{"id": 0, "metadata": [01]}]})",
      R"({"version": 1, "buffers": [], "ops": [{"id": 0}], "ops": [{"id": 0}]})",
      R"({"version": 1, "buffers": [], "ops": [{"id": 0} {"id": 1}]})",
  };
  for (const std::string& text : malformed) {
    EXPECT_FALSE(FastParseGraph(text).has_value()) << text;
    EXPECT_FALSE(ParseGraph(text).ok()) << text;
  }
}

// A file as ReadFile returns it is parsed in place, and read like its copy.
TEST(GraphJsonFastTest, ParsesReadFilesInPlace) {
  const std::string path = std::string(OLLA_SOURCE_DIR) + "/examples/figure3.json";
  StatusOr<std::string> text = ReadFile(path);
  ASSERT_TRUE(text.ok());
  ASSERT_GE(text->capacity(), text->size() + kReadPadding);
  const std::optional<Graph> in_place = FastParseGraph(*text, text->capacity());
  const std::optional<Graph> copied = FastParseGraph(*text);
  ASSERT_TRUE(in_place.has_value() && copied.has_value());
  EXPECT_EQ(GraphToJson(*in_place), GraphToJson(*copied));
}

}  // namespace
}  // namespace olla
