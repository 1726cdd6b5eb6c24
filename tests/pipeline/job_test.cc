#include "olla/pipeline/job.h"

#include <gtest/gtest.h>

#include "olla/io/file.h"

namespace olla {
namespace {

const std::string kExamples = std::string(OLLA_SOURCE_DIR) + "/examples/";

OptimizeRequest Request() {
  OptimizeRequest request;
  request.options.alignment = 1;
  request.work_limit = 100'000;
  return request;
}

// A file and its text are the same job: Figure 3 of the OLLA paper, whose best order
// peaks at 45 MiB.
TEST(JobTest, AFileAndItsTextGiveTheSamePlan) {
  const StatusOr<OptimizeJob> from_file =
      RunOptimizeJob({kExamples + "figure3.json"}, Request());
  ASSERT_TRUE(from_file.ok()) << from_file.status().message();
  const StatusOr<OptimizeJob> from_text =
      RunOptimizeJob({*ReadFile(kExamples + "figure3.json"), false}, Request());
  ASSERT_TRUE(from_text.ok()) << from_text.status().message();
  EXPECT_EQ(from_file->result.arena_bytes(), 45 << 20);
  EXPECT_EQ(from_text->result.plan->order.ops, from_file->result.plan->order.ops);
  EXPECT_EQ(from_file->graph.num_ops(), 4);
}

// The pins file's chain (v3 before v2) holds the order at the eager one's 60 MiB.
TEST(JobTest, LoadsThePinsIntoTheSchedule) {
  const StatusOr<OptimizeJob> job = RunOptimizeJob(
      {kExamples + "figure3.json"}, Request(), kExamples + "schedule/figure3.pins.json");
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(job->result.arena_bytes(), 60 << 20);
}

// A bad source or pins file is an error naming it; a budget nothing fits is a result
// with the library's conclusion.
TEST(JobTest, BadInputIsAnErrorAndARefutedBudgetAConclusion) {
  const StatusOr<OptimizeJob> missing = RunOptimizeJob({"/nonexistent.json"}, Request());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent.json"), std::string::npos);
  EXPECT_FALSE(RunOptimizeJob({"{", false}, Request()).ok());
  EXPECT_FALSE(
      RunOptimizeJob({kExamples + "figure3.json"}, Request(), "/nonexistent.pins").ok());

  OptimizeRequest request = Request();
  request.options.memory_budget = 1000;
  request.options.recompute = false;
  const StatusOr<OptimizeJob> refuted =
      RunOptimizeJob({kExamples + "figure3.json"}, request);
  ASSERT_TRUE(refuted.ok()) << refuted.status().message();
  EXPECT_EQ(refuted->result.conclusion, Conclusion::kRefuted);
  EXPECT_NE(refuted->result.reason.find("forced-live"), std::string::npos);
}

TEST(JobTest, RunsTheTradeoffOfASource) {
  const StatusOr<TradeoffJob> job = RunTradeoffJob(
      {std::string(OLLA_SOURCE_DIR) + "/models/transformer_small.train.b32.json.gz"},
      Request(), 3);
  ASSERT_TRUE(job.ok()) << job.status().message();
  ASSERT_FALSE(job->tradeoff.points.empty());
  EXPECT_EQ(job->tradeoff.points.front().budget_bytes,
            job->tradeoff.searches.front().arena_bytes());
  EXPECT_GT(job->graph.num_ops(), 0);
  EXPECT_FALSE(RunTradeoffJob({"/nonexistent.json"}, Request(), 3).ok());
}

}  // namespace
}  // namespace olla
