#include "olla/io/file.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace olla {
namespace {

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          (std::to_string(::getpid()) + "_" + name))
      .string();
}

TEST(FileTest, RoundTripsPlainAndGzip) {
  const std::string text = std::string(300000, 'x') + "{\"end\": true}";
  for (const std::string name : {"plain.json", "packed.json.gz"}) {
    const std::string path = TempPath(name);
    ASSERT_TRUE(WriteFile(path, text).ok());
    EXPECT_EQ(*ReadFile(path), text);
    std::filesystem::remove(path);
  }
}

TEST(FileTest, GzipIsSmallerAndDetectedByContent) {
  const std::string text(100000, 'a');
  const std::string packed = TempPath("content.json.gz");
  ASSERT_TRUE(WriteFile(packed, text).ok());
  EXPECT_LT(std::filesystem::file_size(packed), 10000u);
  const std::string renamed = TempPath("content_renamed.json");
  std::filesystem::rename(packed, renamed);
  EXPECT_EQ(*ReadFile(renamed), text);
  std::filesystem::remove(renamed);
}

// The text comes with kReadPadding spare bytes of capacity, whether the first
// reservation was right (a plain file, one gzip member) or too small (two gzip members
// one after the other: the trailer gives the last one's size, and reading grows).
TEST(FileTest, LeavesSpareCapacityPastTheText) {
  std::string first, second;
  for (uint64_t i = 0; i < 3000000; ++i) first += static_cast<char>('a' + i * 7919 % 26);
  for (int i = 0; i < 1000; ++i) second += static_cast<char>('a' + (i * 31) % 26);
  const std::string plain = TempPath("spare.json");
  const std::string packed = TempPath("spare.json.gz");
  const std::string tail = TempPath("spare_tail.json.gz");
  ASSERT_TRUE(WriteFile(plain, first).ok());
  ASSERT_TRUE(WriteFile(packed, first).ok());
  ASSERT_TRUE(WriteFile(tail, second).ok());
  for (const std::string& path : {plain, packed}) {
    const StatusOr<std::string> read = ReadFile(path);
    ASSERT_TRUE(read.ok());
    EXPECT_EQ(*read, first);
    EXPECT_GE(read->capacity(), read->size() + kReadPadding);
  }
  {
    std::ofstream append(packed, std::ios::binary | std::ios::app);
    std::ifstream member(tail, std::ios::binary);
    append << member.rdbuf();
  }
  const StatusOr<std::string> both = ReadFile(packed);
  ASSERT_TRUE(both.ok()) << both.status().message();
  EXPECT_EQ(*both, first + second);
  EXPECT_GE(both->capacity(), both->size() + kReadPadding);
  for (const std::string& path : {plain, packed, tail}) std::filesystem::remove(path);
}

TEST(FileTest, MissingFileIsNotFound) {
  const StatusOr<std::string> read = ReadFile("/nonexistent/graph.json");
  EXPECT_EQ(read.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(read.status().message(), "/nonexistent/graph.json: no such file");
}

TEST(FileTest, DirectoryIsRejected) {
  EXPECT_THAT(ReadFile("/tmp").status().message(),
              ::testing::HasSubstr("is a directory"));
}

TEST(FileTest, TruncatedGzipIsRejected) {
  const std::string packed = TempPath("truncated.json.gz");
  std::string noise;
  for (int i = 0; i < 100000; ++i) noise += static_cast<char>('a' + (i * 7919) % 26);
  ASSERT_TRUE(WriteFile(packed, noise).ok());
  std::filesystem::resize_file(packed, std::filesystem::file_size(packed) / 2);
  const StatusOr<std::string> read = ReadFile(packed);
  EXPECT_FALSE(read.ok());
  EXPECT_THAT(read.status().message(), ::testing::HasSubstr("truncated.json.gz"));
  std::filesystem::remove(packed);
}

TEST(FileTest, UnwritablePathIsAnError) {
  EXPECT_THAT(WriteFile("/nonexistent/dir/out.json", "x").message(),
              ::testing::HasSubstr("cannot open for writing"));
}

}  // namespace
}  // namespace olla
