// The olla command end to end: exit codes, JSON output, usage errors, gzip input.
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_olla.h"

namespace olla::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(CliTest, Version) {
  const CliResult result = RunOlla("--version");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_THAT(result.out, StartsWith("olla 0."));
}

TEST(CliTest, HelpOnEveryCommand) {
  for (const std::string command : {"", "simulate ", "check ", "generate "}) {
    const CliResult result = RunOlla(command + "--help");
    EXPECT_EQ(result.exit_code, 0) << command;
    EXPECT_THAT(result.out, HasSubstr("Usage:")) << command;
  }
}

TEST(CliTest, UsageErrorsExitOneWithOneLine) {
  for (const std::string arguments :
       {"", "simulate", "frobnicate", "simulate a.json --bogus",
        "check examples/figure3.json", "generate --ops 2 -o /tmp/x.json"}) {
    const CliResult result = RunOlla(arguments);
    EXPECT_EQ(result.exit_code, 1) << arguments;
    EXPECT_THAT(result.err, StartsWith("olla: ")) << arguments;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  }
}

TEST(CliTest, MissingFileExitsOne) {
  const CliResult result = RunOlla("simulate no/such/graph.json");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "olla: no/such/graph.json: no such file\n");
}

TEST(CliTest, SimulateJsonReportsFigure3) {
  const CliResult result = RunOlla("simulate examples/figure3.json --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["eager_peak_live_bytes"], 62914560);
  EXPECT_EQ(json["ops"], 4);
  EXPECT_EQ(json["buffers"], 6);
  EXPECT_EQ(json["persistent_bytes"], 0);
  EXPECT_EQ(json["eager_reserved_bytes"], 73400320);
  EXPECT_EQ(json["lower_bound_bytes"], 47185920);
}

TEST(CliTest, CheckAcceptsBothFigure3Plans) {
  const CliResult eager =
      RunOlla("check examples/figure3.json examples/figure3.eager.plan.json --json");
  ASSERT_EQ(eager.exit_code, 0) << eager.err;
  EXPECT_EQ(nlohmann::json::parse(eager.out)["valid"], true);
  EXPECT_EQ(nlohmann::json::parse(eager.out)["peak_live_bytes"], 62914560);
  const CliResult reordered =
      RunOlla("check examples/figure3.json examples/figure3.reordered.plan.json --json");
  ASSERT_EQ(reordered.exit_code, 0) << reordered.err;
  EXPECT_EQ(nlohmann::json::parse(reordered.out)["peak_live_bytes"], 47185920);
  EXPECT_EQ(nlohmann::json::parse(reordered.out)["arena_bytes"], 47185920);
}

TEST(CliTest, CheckJsonOnAnInvalidPlanStillPrintsAnObject) {
  const CliResult result =
      RunOlla("check examples/figure3.json tests/errors/plan/overlap.json --json");
  EXPECT_EQ(result.exit_code, 1);
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["valid"], false);
  EXPECT_THAT(json["error"].get<std::string>(), HasSubstr("overlaps"));
  EXPECT_THAT(result.err, HasSubstr("invalid plan"));
}

TEST(CliTest, GeneratedGzipGraphLoadsAndSimulates) {
  const std::string path =
      (std::filesystem::temp_directory_path() /
       ("olla_cli_generated_" + std::to_string(::getpid()) + ".json.gz"))
          .string();
  const CliResult generated = RunOlla("generate --ops 301 --seed 3 -o " + path);
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  const CliResult simulated = RunOlla("simulate --json " + path);
  ASSERT_EQ(simulated.exit_code, 0) << simulated.err;
  const auto json = nlohmann::json::parse(simulated.out);
  EXPECT_EQ(json["ops"], 301);
  EXPECT_GT(json["eager_peak_live_bytes"].get<int64_t>(),
            json["lower_bound_bytes"].get<int64_t>());
  EXPECT_GE(json["eager_reserved_bytes"].get<int64_t>(),
            json["eager_peak_live_bytes"].get<int64_t>() +
                json["persistent_bytes"].get<int64_t>());
  // Same options, same bytes.
  const std::string again = path + ".again.json.gz";
  ASSERT_EQ(RunOlla("generate --ops 301 --seed 3 -o " + again).exit_code, 0);
  EXPECT_EQ(ReadText(path), ReadText(again));
  std::filesystem::remove(path);
  std::filesystem::remove(again);
}

}  // namespace
}  // namespace olla::testing
