#include "olla/pipeline/option_table.h"

#include <set>

#include <gtest/gtest.h>

namespace olla {
namespace {

TEST(OptionTableTest, NamesAndFlagsAreUniqueAndEveryOptionHasHelp) {
  std::set<std::string> names, flags;
  for (const OptionSpec& spec : OptimizeOptionTable()) {
    EXPECT_TRUE(names.insert(spec.name).second) << spec.name;
    EXPECT_TRUE(flags.insert(spec.flag).second) << spec.flag;
    EXPECT_TRUE(spec.flag.starts_with("--")) << spec.flag;
    EXPECT_FALSE(spec.help.empty()) << spec.name;
  }
}

TEST(OptionTableTest, ValuesAreParsedIntoTheRequest) {
  OptimizeRequest request;
  ASSERT_TRUE(SetOptimizeOption(request, "time_limit", "2.5").ok());
  ASSERT_TRUE(SetOptimizeOption(request, "work_limit", "1000").ok());
  ASSERT_TRUE(SetOptimizeOption(request, "memory_budget", "4096").ok());
  ASSERT_TRUE(SetOptimizeOption(request, "alignment", "64").ok());
  ASSERT_TRUE(SetOptimizeOption(request, "schedule_method", "greedy").ok());
  ASSERT_TRUE(SetOptimizeOption(request, "placement_method", "exact").ok());
  ASSERT_TRUE(SetOptimizeOption(request, "updates_asap", "false").ok());
  ASSERT_TRUE(SetOptimizeOption(request, "threads", "1").ok());
  EXPECT_EQ(request.time_limit_seconds, 2.5);
  EXPECT_EQ(request.work_limit, 1000);
  EXPECT_EQ(request.options.memory_budget, 4096);
  EXPECT_EQ(request.options.alignment, 64);
  EXPECT_EQ(request.options.schedule.method, "greedy");
  EXPECT_EQ(request.options.placement_method, "exact");
  EXPECT_FALSE(request.options.schedule.rules.updates_asap);
  EXPECT_EQ(request.options.threads, 1);
  EXPECT_EQ(request.MakeBudget().work_left(), 1000);
}

TEST(OptionTableTest, BadValuesSayWhatIsExpected) {
  OptimizeRequest request;
  auto error = [&](std::string_view name, std::string_view text) {
    return SetOptimizeOption(request, name, text).message();
  };
  EXPECT_EQ(error("time_limit", "0"),
            "must be a positive number of seconds, at most 1e+09, got '0'");
  for (const char* text : {"inf", "nan", "1e10", "-1", "", "2s", "1e400"})
    EXPECT_FALSE(SetOptimizeOption(request, "time_limit", text).ok()) << text;
  EXPECT_EQ(error("alignment", "0"), "must be an integer from 1 to 1073741824, got '0'");
  EXPECT_FALSE(SetOptimizeOption(request, "alignment", "1073741825").ok());
  EXPECT_FALSE(SetOptimizeOption(request, "threads", "100000").ok());
  for (const char* text : {"99999999999999999999999", "-5", "1.5", "0x10", " 4"})
    EXPECT_FALSE(SetOptimizeOption(request, "memory_budget", text).ok()) << text;
  EXPECT_EQ(error("placement_method", "magic"),
            "must be one of auto, best-fit, first-fit, sweep, exact, ilp, got 'magic'");
  EXPECT_EQ(error("updates_asap", "yes"), "must be true or false, got 'yes'");
  EXPECT_EQ(error("frobnicate", "1").substr(0, 30), "unknown option (the options ar");
  // Control characters are escaped: the message stays one line.
  EXPECT_EQ(error("schedule_method", "a\nb"),
            "must be one of auto, eager, greedy, dp, local, ilp, joint, got 'a\\x0ab'");
  // Nothing was stored by the failures.
  EXPECT_EQ(request.time_limit_seconds, OptimizeRequest().time_limit_seconds);
}

TEST(OptionTableTest, ValuesListEveryOptionThatHasOne) {
  OptimizeRequest request;
  std::vector<std::pair<std::string, std::string>> values = OptimizeOptionValues(request);
  EXPECT_EQ(values.front(), (std::pair<std::string, std::string>{"time_limit", "10"}));
  for (const auto& [name, value] : values) EXPECT_NE(name, "work_limit");
  ASSERT_TRUE(SetOptimizeOption(request, "work_limit", "7").ok());
  values = OptimizeOptionValues(request);
  EXPECT_EQ(values[1], (std::pair<std::string, std::string>{"work_limit", "7"}));
}

TEST(OptionTableTest, ValuesCanBeListedForSomeOptionsOnly) {
  OptimizeRequest request;
  request.options.schedule.method = "dp";
  EXPECT_EQ(OptimizeOptionValues(request, {"schedule_method", "time_limit"}),
            (std::vector<std::pair<std::string, std::string>>{
                {"time_limit", "10"}, {"schedule_method", "dp"}}));
}

// A request built in C++ meets the same ranges and choices as a parsed one.
TEST(OptionTableTest, RequestsBuiltInCodeAreCheckedByTheTable) {
  EXPECT_TRUE(CheckOptionValues(OptimizeRequest()).ok());
  OptimizeRequest request;
  request.options.alignment = 0;
  EXPECT_EQ(CheckOptionValues(request).message(),
            "alignment: must be an integer from 1 to 1073741824, got '0'");
  request = {};
  request.options.memory_budget = -1;
  EXPECT_FALSE(CheckOptionValues(request).ok());
  request = {};
  request.options.threads = 0;
  EXPECT_FALSE(CheckOptionValues(request).ok());
  request = {};
  request.time_limit_seconds = -3;  // wall clock: a bad value, checked, never run
  EXPECT_FALSE(CheckOptionValues(request).ok());
}

}  // namespace
}  // namespace olla
