// The CLI's text output, compared with golden files: each tests/golden/NAME.cmd holds
// the arguments of one olla command, NAME.golden its exact stdout, with measured times
// ("0.013 s", "\"seconds\": 0.013", "\"bound_seconds\": 0.0") replaced by "<time>".
// Regenerate with OLLA_UPDATE_GOLDEN=1 and review the diff.
#include <regex>

#include <gtest/gtest.h>

#include "run_olla.h"

namespace olla::testing {
namespace {

std::string WithoutTimes(const std::string& text) {
  static const std::regex kSeconds(R"((\d+\.\d+ s\b)|("(\w+_)?seconds": [0-9.e+-]+))");
  return std::regex_replace(text, kSeconds, "<time>");
}

class GoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenTest, OutputMatches) {
  const std::string cmd_path = SourcePath(GetParam());
  std::string arguments = ReadText(cmd_path);
  while (!arguments.empty() && arguments.back() == '\n') arguments.pop_back();
  const CliResult result = RunOlla(arguments);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string golden_path = cmd_path.substr(0, cmd_path.size() - 4) + ".golden";
  const std::string output = WithoutTimes(result.out);
  if (UpdateGolden()) WriteText(golden_path, output);
  EXPECT_EQ(output, ReadText(golden_path)) << "olla " << arguments;
}

std::string NameOf(const ::testing::TestParamInfo<std::string>& case_info) {
  return CaseName(case_info.param, "tests/golden");
}

INSTANTIATE_TEST_SUITE_P(Cli, GoldenTest,
                         ::testing::ValuesIn(FilesEndingWith("tests/golden", ".cmd")),
                         NameOf);

}  // namespace
}  // namespace olla::testing
