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
  // wall clock: --help never searches.
  for (const std::string command :
       {"", "optimize ", "simulate ", "check ", "place ", "schedule ", "generate "}) {
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

// Every hard shape round-trips through the file and `olla optimize` saves on it.
TEST(CliTest, HardShapesOptimizeBelowEager) {
  for (const char* shape :
       {"multi-branch", "unet", "transformer", "layered", "mixture"}) {
    const std::string path =
        (std::filesystem::temp_directory_path() /
         ("olla_cli_" + std::string(shape) + std::to_string(::getpid()) + ".json.gz"))
            .string();
    const CliResult generated =
        RunOlla(std::string("generate --shape ") + shape + " --ops 300 -o " + path);
    ASSERT_EQ(generated.exit_code, 0) << generated.err;
    const CliResult optimized = RunOlla("optimize --json --work-limit 20000 " + path);
    ASSERT_EQ(optimized.exit_code, 0) << optimized.err;
    const auto json = nlohmann::json::parse(optimized.out);
    EXPECT_GT(json["saving_vs_reserved"].get<double>(), 0.15) << shape;
    std::filesystem::remove(path);
  }
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("olla_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

TEST(CliTest, OptimizeWritesAPlanThatCheckAcceptsAndAReport) {
  const std::string plan = TempPath("resnet18.plan.json");
  const std::string report = TempPath("resnet18.md");
  const CliResult result =
      RunOlla("optimize models/resnet18.train.b1.json.gz --work-limit 100000 -o " + plan +
              " --report " + report);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const CliResult check =
      RunOlla("check --json models/resnet18.train.b1.json.gz " + plan);
  ASSERT_EQ(check.exit_code, 0) << check.err;
  const nlohmann::json checked = nlohmann::json::parse(check.out);
  EXPECT_EQ(checked["valid"], true);
  EXPECT_EQ(checked["alignment"], 512);
  EXPECT_THAT(ReadText(report), HasSubstr("# olla plan for resnet18.train.b1"));
  // The same work limit gives the same plan bytes.
  const std::string again = TempPath("resnet18.again.plan.json");
  ASSERT_EQ(
      RunOlla("optimize models/resnet18.train.b1.json.gz --work-limit 100000 -o " + again)
          .exit_code,
      0);
  EXPECT_EQ(ReadText(plan), ReadText(again));
  for (const std::string& path : {plan, report, again}) std::filesystem::remove(path);
}

// Budget mode recomputes when reordering cannot fit: the plan file is version 3, olla
// check accepts it, and --no-recompute refuses the same budget.
TEST(CliTest, OptimizeBudgetRecomputesAndCheckAcceptsThePlan) {
  const std::string plan = TempPath("gpt2.recompute.plan.json");
  const std::string graph = "models/gpt2_small.train.b1.json.gz";
  // Work stops it; the time limit is far away (ASan under load is slow).
  const std::string budget = " --memory-budget 900000000 --time-limit 3600 ";
  const CliResult fit =
      RunOlla("optimize " + graph + budget + "--work-limit 4000 -o " + plan);
  ASSERT_EQ(fit.exit_code, 0) << fit.err;
  EXPECT_THAT(fit.out, HasSubstr("memory budget     900000000 B (858.3 MiB): fits"));
  EXPECT_THAT(fit.out, HasSubstr("ops run twice"));
  EXPECT_THAT(ReadText(plan), HasSubstr("\"version\": 3"));
  const CliResult check = RunOlla("check " + graph + " " + plan);
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_THAT(check.out, HasSubstr("recomputations honours every dependency"));
  const CliResult refused =
      RunOlla("optimize " + graph + budget + "--work-limit 200000 --no-recompute");
  EXPECT_EQ(refused.exit_code, 2);
  std::filesystem::remove(plan);
}

TEST(CliTest, OptimizeBudgetAtTheBoundFitsAndBelowItIsRefuted) {
  const CliResult at = RunOlla(
      "optimize examples/figure3.json --work-limit 100000 --memory-budget 47185920");
  EXPECT_EQ(at.exit_code, 0) << at.err;
  EXPECT_THAT(at.out, HasSubstr("memory budget     47185920 B (45.0 MiB): fits"));
  const std::string plan = TempPath("refuted.plan.json");
  const CliResult below = RunOlla(
      "optimize examples/figure3.json --work-limit 100000 --memory-budget 47185919 -o " +
      plan);
  EXPECT_EQ(below.exit_code, 2);
  EXPECT_EQ(below.err,
            "olla: no plan fits in 47185919 bytes: 47185920 bytes are live at op 4 'v4' "
            "in every order (proof: the forced-live bound)\n");
  EXPECT_FALSE(std::filesystem::exists(plan));  // No plan is written when none fits.
}

// Recomputation may try on GPT-2, but no plan goes below its recompute floor: a budget
// under it is refuted before any search (a work limit of 1 is never reached).
TEST(CliTest, OptimizeRefutesABudgetBelowTheRecomputeFloor) {
  const CliResult below = RunOlla(
      "optimize models/gpt2_small.train.b1.json.gz --work-limit 1 --memory-budget "
      "1000000 --json");
  EXPECT_EQ(below.exit_code, 2);
  EXPECT_THAT(below.err, ::testing::StartsWith("olla: no plan fits in 1000000 bytes, "
                                               "recomputing or not: "));
  EXPECT_THAT(below.err, HasSubstr("(proof: the recompute floor, "));
  EXPECT_THAT(below.out, HasSubstr("\"conclusion\": \"refuted\""));
  EXPECT_THAT(below.out, HasSubstr("\"recompute_floor_bytes\": "));
  const CliResult text = RunOlla(
      "optimize models/gpt2_small.train.b1.json.gz --work-limit 1 --memory-budget "
      "1000000");
  EXPECT_THAT(text.out, HasSubstr("1000000 B (976.6 KiB) is below the recompute floor: "
                                  "no plan fits"));
}

// Budget mode's search never makes the step's outputs again (resnet18's loss: 4 bytes
// between the floors): a budget between the floor of every plan and that of the plans
// it searches is refuted at once.
TEST(CliTest, OptimizeRefutesABudgetBelowTheSearchedFloor) {
  const std::string command =
      "optimize models/resnet18.train.b1.json.gz --work-limit 1 --memory-budget 18804226";
  const CliResult text = RunOlla(command);
  EXPECT_EQ(text.exit_code, 2);
  EXPECT_EQ(
      text.err,
      "olla: no plan budget mode can make fits in 18804226 bytes: 18804228 bytes are "
      "live at op 148 'layer4.1.conv2/convolution_backward' in every plan that never "
      "makes the step's outputs again (proof: the searched floor, its inputs, outputs "
      "and workspace, 9738240 bytes, and 9065988 bytes live there that no "
      "recomputation budget mode makes frees; no plan, recomputing or not, needs less "
      "than 18804224 bytes)\n");
  EXPECT_THAT(text.out, HasSubstr("18804226 B (17.9 MiB) is below the searched floor: no "
                                  "plan budget mode can make fits"));
  const CliResult json = RunOlla(command + " --json");
  EXPECT_THAT(json.out, HasSubstr("\"conclusion\": \"refuted\""));
  EXPECT_THAT(json.out, HasSubstr("\"recompute_floor_bytes\": 18804224"));
  EXPECT_THAT(json.out, HasSubstr("\"searched_floor_bytes\": 18804228"));
}

// Between the searched floor and the order's (remat/added_cost_bound.h), no plan on the
// order searched fits: the no-plan line gives the order's floor, from its first
// measurement on.
TEST(CliTest, OptimizeNamesTheOrdersFloorWhenTheBudgetIsBelowIt) {
  const std::string command =
      "optimize models/mnasnet0_5.train.b1.json.gz --align 1 --work-limit 1 "
      "--memory-budget 12480000";
  const CliResult text = RunOlla(command);
  EXPECT_EQ(text.exit_code, 2);
  EXPECT_THAT(text.err, StartsWith("olla: no plan within 12480000 bytes found: "));
  EXPECT_THAT(text.err, HasSubstr("none budget mode can make less than 12475844 bytes; "
                                  "on the order searched, none needs less than 12484964 "
                                  "bytes, live at op 318 "
                                  "'layers.14/convolution_backward')\n"));
  EXPECT_THAT(text.out, HasSubstr("none on the order searched below 12484964 B (11.9 "
                                  "MiB) (the order's floor)"));
  const CliResult json = RunOlla(command + " --json");
  EXPECT_THAT(json.out, HasSubstr("\"order_floor_bytes\": 12484964"));
  EXPECT_THAT(json.out, HasSubstr("\"order_reaches_budget\": false"));
}

TEST(CliTest, OptimizeNamesThePinsFileWhenPinsContradictTheGraph) {
  const CliResult result = RunOlla(
      "optimize examples/figure3.json --work-limit 100 --pin "
      "tests/errors/pins/contradicts_dependencies.json");
  // The same line as `olla schedule` gives (tests/errors/pins).
  EXPECT_EQ(std::to_string(result.exit_code) + "\n" + result.err,
            ReadText(SourcePath("tests/errors/pins/contradicts_dependencies.expected")));
}

TEST(CliTest, OptimizeUsageErrors) {
  for (const std::string arguments :
       {"optimize examples/figure3.json --align 0 --work-limit 1",
        "optimize examples/figure3.json --placement-method magic --work-limit 1",
        "optimize examples/figure3.json --schedule-method magic --work-limit 1",
        "optimize examples/figure3.json --memory-budget -5 --work-limit 1",
        "optimize examples/figure3.json --time-limit 0 --work-limit 1"}) {
    const CliResult result = RunOlla(arguments);
    EXPECT_EQ(result.exit_code, 1) << arguments;
    EXPECT_THAT(result.err, StartsWith("olla: ")) << arguments;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  }
}

// Numbers are parsed whole and in range: nothing is clamped, wrapped or taken at once.
TEST(CliTest, OutOfRangeNumbersAreUsageErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"place examples/placement/staircase.csv --work-limit 1 --capacity "
       "99999999999999999999999",
       "olla: --capacity: must be an integer from 0 to 9223372036854775807, got "
       "'99999999999999999999999' (see olla --help)\n"},
      {"place examples/placement/staircase.csv --work-limit 1 --time-limit inf",
       "olla: option --time-limit: must be a positive number of seconds, at most 1e+09, "
       "got 'inf'\n"},
      {"schedule examples/figure3.json --work-limit 1 --time-limit nan",
       "olla: option --time-limit: must be a positive number of seconds, at most 1e+09, "
       "got 'nan'\n"},
      {"place examples/placement/staircase.csv --work-limit 1 --align 2000000000",
       "olla: option --align: must be an integer from 1 to 1073741824, got "
       "'2000000000'\n"},
      {"simulate examples/figure3.json --time-limit 0",
       "olla: option --time-limit: must be a positive number of seconds, at most 1e+09, "
       "got '0'\n"},
      {"generate --shape spiral -o /tmp/olla_never_written.json",
       "olla: --shape: spiral not in "
       "{training,multi-branch,unet,transformer,layered,mixture} (see olla --help)\n"},
      {"generate --seed -1 -o /tmp/olla_never_written.json",
       "olla: --seed: must be an integer from 0 to 9223372036854775807, got '-1' (see "
       "olla --help)\n"},
      {"optimize examples/figure3.json --work-limit 1 --time-limit 1e10",
       "olla: option --time-limit: must be a positive number of seconds, at most 1e+09, "
       "got '1e10'\n"},
  };
  for (const auto& [arguments, message] : cases) {
    const CliResult result = RunOlla(arguments);
    EXPECT_EQ(result.exit_code, 1) << arguments;
    EXPECT_EQ(result.err, message) << arguments;
  }
}

TEST(CliTest, PlaceWritesACheckedCsv) {
  const std::string out = (std::filesystem::temp_directory_path() /
                           ("olla_place_" + std::to_string(::getpid()) + ".csv"))
                              .string();
  const CliResult result = RunOlla(
      "place examples/placement/staircase.csv --work-limit 100000 --align 8 -o " + out);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(ReadText(out),
            "id,lower,upper,size,alignment,offset\n"
            "a,3,6,16,8,0\nb,2,3,32,8,0\nc,4,6,20,8,40\nd,1,4,16,8,32\ne,4,5,24,8,16\n");
  // The written file is itself a valid problem with fixed offsets.
  const CliResult again = RunOlla("place --json --work-limit 100000 " + out);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["arena_bytes"], 60);
  std::filesystem::remove(out);
}

TEST(CliTest, PlaceCapacityBelowTheBoundIsProvedImpossible) {
  const CliResult result =
      RunOlla("place examples/placement/staircase.csv --work-limit 100000 --capacity 59");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err,
            "olla: nothing fits in 59 bytes: 60 bytes are live at time 4 (proof: the "
            "live-bytes "
            "bound)\n");
}

TEST(CliTest, PlaceCapacityTheGreedyMissesTheExactSearchFits) {
  // Every greedy order needs 64 bytes and the sweep 76; the exact search (auto) fits
  // the bound, 60.
  const CliResult greedy = RunOlla(
      "place examples/placement/staircase.csv --work-limit 100000 --capacity 62 "
      "--method best-fit");
  EXPECT_EQ(greedy.exit_code, 2);
  EXPECT_EQ(greedy.err,
            "olla: no placement within 62 bytes found by best-fit/area (best 64, lower "
            "bound 60; the method searches no further; --method exact does)\n");
  const CliResult exact = RunOlla(
      "place examples/placement/staircase.csv --work-limit 100000 --capacity 60 --json");
  ASSERT_EQ(exact.exit_code, 0) << exact.err;
  const auto json = nlohmann::json::parse(exact.out);
  EXPECT_EQ(json["fits"], true);
  EXPECT_EQ(json["arena_bytes"], 60);
  EXPECT_EQ(json["method"], "exact");
}

TEST(CliTest, PlaceUsageErrors) {
  for (const std::string arguments :
       {"place", "place examples/placement/staircase.csv --method magic --work-limit 1",
        "place examples/placement/staircase.csv --capacity 5 --minimize --work-limit 1",
        "place examples/placement/staircase.csv --align 0 --work-limit 1"}) {
    const CliResult result = RunOlla(arguments);
    EXPECT_EQ(result.exit_code, 1) << arguments;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  }
}

TEST(CliTest, ScheduleWritesAnOrderThatCheckAccepts) {
  const std::string plan = ::testing::TempDir() + "/figure3.order.json";
  const CliResult result =
      RunOlla("schedule examples/figure3.json --work-limit 100000 --json -o " + plan);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["peak_live_bytes"], 47185920);
  EXPECT_EQ(json["eager_peak_live_bytes"], 62914560);
  EXPECT_EQ(json["lower_bound_bytes"], 47185920);
  EXPECT_EQ(json["optimal"], true);
  EXPECT_TRUE(json.contains("seconds") && json.contains("method"));
  const CliResult check = RunOlla("check examples/figure3.json " + plan + " --json");
  ASSERT_EQ(check.exit_code, 0) << check.err;
  EXPECT_EQ(nlohmann::json::parse(check.out)["peak_live_bytes"], 47185920);
}

TEST(CliTest, EveryScheduleMethodGivesACheckedOrder) {
  const std::string plan = ::testing::TempDir() + "/mlp.order.json";
  for (const std::string method : {"auto", "eager", "greedy", "dp", "local", "ilp"}) {
    const CliResult result =
        RunOlla("schedule examples/mlp_sgd.json --work-limit 100000 --json --method " +
                method + " -o " + plan);
    ASSERT_EQ(result.exit_code, 0) << method << ": " << result.err;
    const auto json = nlohmann::json::parse(result.out);
    const CliResult check = RunOlla("check examples/mlp_sgd.json " + plan + " --json");
    ASSERT_EQ(check.exit_code, 0) << method << ": " << check.err;
    EXPECT_EQ(nlohmann::json::parse(check.out)["peak_live_bytes"],
              json["peak_live_bytes"])
        << method;
  }
}

TEST(CliTest, SchedulePinsAreHonoured) {
  // Pinning v3 before v2 forces Figure 3's eager order and its 60 MiB.
  const CliResult result = RunOlla(
      "schedule examples/figure3.json --work-limit 100000 --json --pin "
      "examples/schedule/figure3.pins.json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["peak_live_bytes"], 62914560);
  EXPECT_EQ(json["eager_peak_live_bytes"], 62914560);
}

TEST(CliTest, ScheduleUsageErrors) {
  for (const std::string arguments :
       {"schedule", "schedule examples/figure3.json --method magic --work-limit 1",
        "schedule examples/figure3.json --time-limit 0 --work-limit 1",
        "schedule examples/figure3.json --ilp-horizon long --work-limit 1",
        "schedule examples/figure3.json --method joint --work-limit 1",
        "schedule examples/figure3.json --pin no/such/pins.json --work-limit 1"}) {
    const CliResult result = RunOlla(arguments);
    EXPECT_EQ(result.exit_code, 1) << arguments;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  }
}

// `olla tradeoff` takes the option table's flags but the memory budget, which it sets
// itself, and a count of points in range; a bad one is a usage error before loading.
TEST(CliTest, TradeoffUsageErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"tradeoff examples/mlp_sgd.json --points 1 --work-limit 1",
       "olla: option --points: must be an integer from 2 to 100, got 1\n"},
      {"tradeoff no/such/graph.json --points 101 --work-limit 1",
       "olla: option --points: must be an integer from 2 to 100, got 101\n"},
      {"tradeoff examples/mlp_sgd.json --time-limit 0 --work-limit 1",
       "olla: option --time-limit: must be a positive number of seconds, at most 1e+09, "
       "got "
       "'0'\n"}};
  for (const auto& [arguments, message] : cases) {
    const CliResult result = RunOlla(arguments);
    EXPECT_EQ(result.exit_code, 1) << arguments;
    EXPECT_EQ(result.err, message) << arguments;
  }
  const CliResult budget =
      RunOlla("tradeoff examples/mlp_sgd.json --memory-budget 1000 --work-limit 1");
  EXPECT_EQ(budget.exit_code, 1);
  EXPECT_THAT(budget.err, HasSubstr("--memory-budget"));
}

}  // namespace
}  // namespace olla::testing
