// Every bad input in tests/errors is rejected with exit code 1 and exactly the one line
// its .expected file holds (line 1: the exit code; line 2: stderr). Graph cases are
// loaded by `olla simulate`; plan cases are checked against examples/figure3.json;
// CSV cases are placed by `olla place`; pins cases pin examples/figure3.json's schedule.
#include <gtest/gtest.h>

#include "run_olla.h"

namespace olla::testing {
namespace {

struct ErrorCase {
  std::string input;  // Path relative to the source directory.
  std::string command;
};

std::vector<ErrorCase> AllCases() {
  std::vector<ErrorCase> cases;
  for (const std::string& graph : FilesEndingWith("tests/errors/graph", ".json")) {
    cases.push_back({graph, "simulate " + graph});
  }
  for (const std::string& plan : FilesEndingWith("tests/errors/plan", ".json")) {
    cases.push_back({plan, "check examples/figure3.json " + plan});
  }
  for (const std::string& csv : FilesEndingWith("tests/errors/csv", ".csv")) {
    // wall clock: every case is rejected on loading, before any search.
    cases.push_back({csv, "place " + csv});
  }
  for (const std::string& pins : FilesEndingWith("tests/errors/pins", ".json")) {
    // wall clock: every case is rejected on loading, before any search.
    cases.push_back({pins, "schedule examples/figure3.json --pin " + pins});
  }
  return cases;
}

// Names a case by its file in test listings.
void PrintTo(const ErrorCase& error_case, std::ostream* out) { *out << error_case.input; }

class ErrorCaseTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ErrorCaseTest, RejectedWithOneClearLine) {
  const ErrorCase& error_case = GetParam();
  const CliResult result = RunOlla(error_case.command);
  const std::string actual = std::to_string(result.exit_code) + "\n" + result.err;
  const std::string expected_path =
      SourcePath(error_case.input.substr(0, error_case.input.rfind('.')) + ".expected");
  if (UpdateGolden()) WriteText(expected_path, actual);
  EXPECT_EQ(actual, ReadText(expected_path)) << "olla " << error_case.command;
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  EXPECT_EQ(result.out, "");
}

std::string NameOf(const ::testing::TestParamInfo<ErrorCase>& case_info) {
  return CaseName(case_info.param.input, "tests/errors");
}

INSTANTIATE_TEST_SUITE_P(Errors, ErrorCaseTest, ::testing::ValuesIn(AllCases()), NameOf);

}  // namespace
}  // namespace olla::testing
