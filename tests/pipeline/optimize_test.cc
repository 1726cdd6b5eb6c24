#include "olla/pipeline/optimize.h"

#include <algorithm>
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "olla/generators/synthetic.h"
#include "olla/io/graph_json.h"
#include "olla/io/plan_json.h"

#include "graph_builder.h"
#include "training_chain.h"
#include "two_readers_at_once.h"
#include "waiting_across_a_spike.h"

namespace olla {
namespace {

// Tests stop on work, never on the clock.
Budget TestBudget() { return Budget::OfWork(2'000'000); }

std::vector<std::string> ZooGraphs() {
  std::vector<std::string> paths;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(OLLA_SOURCE_DIR) + "/models")) {
    const std::string path = entry.path().string();
    if (path.ends_with(".json.gz")) paths.push_back(path);
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

TEST(OptimizeTest, Figure3ReachesItsBoundWithACheckedPlan) {
  const Graph graph = testing::Figure3Graph();
  const StatusOr<OptimizeResult> result = Optimize(graph, {}, TestBudget());
  ASSERT_TRUE(result.ok()) << result.status().message();
  ASSERT_TRUE(result->plan.has_value());
  EXPECT_TRUE(result->check.valid);
  EXPECT_EQ(result->schedule.peak_bytes, 45 * testing::kMiB);
  EXPECT_EQ(result->placement.arena_bytes, 45 * testing::kMiB);
  EXPECT_TRUE(result->optimal_order());
  EXPECT_TRUE(result->optimal_placement());
  EXPECT_GT(result->saving_vs_reserved(), 0.3);
  ASSERT_EQ(result->stages.size(), 4u);
  EXPECT_EQ(result->stages[1].name, "schedule");
}

// Every plan of the pipeline on the zoo's graphs passes the checker, places within
// 0.1 % of the order's rounded peak and saves against reserved bytes. The exception
// is transformer.train.b1, 2.3 % above it: the order's peak has a shape the exact
// search cannot close in this work, and joint refinement of order and offsets (issue
// 10, step 4) is what will.
TEST(OptimizeTest, EveryZooPlanIsCheckedAndAtItsRoundedPeak) {
  const std::vector<std::string> paths = ZooGraphs();
  ASSERT_FALSE(paths.empty());
  for (const std::string& path : paths) {
    if (path.find(".b1.") == std::string::npos) continue;  // Batch 1: quick.
    const Graph graph = *LoadGraph(path);
    const StatusOr<OptimizeResult> result = Optimize(graph, {}, Budget::OfWork(20'000));
    ASSERT_TRUE(result.ok()) << path << ": " << result.status().message();
    ASSERT_TRUE(result->plan && result->check.valid) << path;
    if (path.find("transformer.train.b1") == std::string::npos) {
      EXPECT_LE(result->placement.arena_bytes,
                result->rounded_peak_bytes + result->rounded_peak_bytes / 1000)
          << path;
    }
    EXPECT_GE(result->placement.arena_bytes, result->schedule.peak_bytes) << path;
    EXPECT_GE(result->saving_vs_reserved(), 0.0) << path;
  }
}

TEST(OptimizeTest, SameInputAndWorkLimitGiveTheSamePlanBytes) {
  const Graph graph =
      *LoadGraph(std::string(OLLA_SOURCE_DIR) + "/models/resnet18.train.b1.json.gz");
  const OptimizeResult a = *Optimize(graph, {}, TestBudget());
  const OptimizeResult b = *Optimize(graph, {}, TestBudget());
  EXPECT_EQ(PlanToJson(graph, *a.plan), PlanToJson(graph, *b.plan));
}

TEST(OptimizeTest, ABudgetAtTheBoundFindsAPlanAtIt) {
  const Graph graph = testing::Figure3Graph();
  OptimizeOptions options;
  options.memory_budget = 45 * testing::kMiB;
  const OptimizeResult result = *Optimize(graph, options, TestBudget());
  EXPECT_TRUE(result.fits());
  EXPECT_EQ(result.placement.arena_bytes, 45 * testing::kMiB);
}

TEST(OptimizeTest, ABudgetBelowTheBoundIsRefutedBeforeScheduling) {
  const Graph graph = testing::Figure3Graph();
  OptimizeOptions options;
  options.memory_budget = 45 * testing::kMiB - 1;
  const Budget budget = TestBudget();
  const OptimizeResult result = *Optimize(graph, options, budget);
  EXPECT_FALSE(result.fits());
  EXPECT_EQ(result.conclusion, Conclusion::kRefuted);
  EXPECT_FALSE(result.plan.has_value());
  EXPECT_EQ(result.stages.size(), 1u);  // The baselines and bounds only.
  EXPECT_EQ(budget.work_spent(), 0);
}

// Optimize() at `budget_bytes`, expected refuted by the bounds alone: no plan, and no
// work unless a proof's max flows (`proved`) spent it.
OptimizeResult RefutedBeforeAnySearch(const Graph& graph, int64_t budget_bytes,
                                      bool proved = false) {
  OptimizeOptions options;
  options.alignment = 1;
  options.memory_budget = budget_bytes;
  const Budget budget = TestBudget();
  OptimizeResult result = *Optimize(graph, options, budget);
  EXPECT_EQ(result.conclusion, Conclusion::kRefuted);
  EXPECT_FALSE(result.plan.has_value());
  EXPECT_EQ(result.stages.size(), 1u);  // The baselines and bounds only.
  if (!proved) {
    EXPECT_EQ(budget.work_spent(), 0);
  }
  return result;
}

// Recomputation may lower the chain's peak, but not below its floor (4 of 10 units:
// remat/recompute_floor.h): a budget under it is refuted before any search, with the
// proof in one line; at the floor's level the search still runs.
TEST(OptimizeTest, ABudgetBelowTheRecomputeFloorIsRefutedBeforeAnySearch) {
  const Graph graph = testing::MakeTrainingChain(8, 1000).builder.Build();
  const OptimizeResult result = RefutedBeforeAnySearch(graph, 3999);
  ASSERT_TRUE(result.recompute_floor.has_value());
  EXPECT_EQ(result.recompute_floor->every_plan.bytes, 4000);
  EXPECT_EQ(
      result.reason,
      "no plan fits in 3999 bytes, recomputing or not: 4000 bytes are live at op 9 'v9' "
      "in every plan (proof: the recompute floor, its inputs, outputs and "
      "workspace, 3000 bytes, and 1000 bytes live there that no recomputation "
      "frees)");

  OptimizeOptions options;
  options.alignment = 1;
  options.memory_budget = 4000;
  const OptimizeResult searched = *Optimize(graph, options, TestBudget());
  EXPECT_NE(searched.conclusion, Conclusion::kRefuted);
  EXPECT_TRUE(searched.plan.has_value());
  EXPECT_TRUE(searched.recompute.has_value());
}

// Above the recompute floor (12 bytes) but below what the floor raised by what a later
// reader needs shows (13: remat/recompute_floor_proof.h), a budget is refuted before
// any search too, with that proof.
TEST(OptimizeTest, ABudgetBelowTheRaisedFloorIsRefutedBeforeAnySearch) {
  const Graph graph = testing::WaitingAcrossASpike();
  const OptimizeResult result = RefutedBeforeAnySearch(graph, 12, /*proved=*/true);
  EXPECT_EQ(
      result.reason,
      "no plan fits in 12 bytes, recomputing or not: every plan peaks at 13 bytes or "
      "more (proof: the recompute floor raised by what a later reader needs: at the "
      "first run of op 5 'v5', its inputs, outputs and workspace, 11 bytes, 1 bytes that "
      "no recomputation frees, and, below that peak, 1 bytes that op 7 'v7' reads, held "
      "there or made from, as no run in between can make them)");

  OptimizeOptions options;
  options.alignment = 1;
  options.memory_budget = 13;
  EXPECT_TRUE(Optimize(graph, options, TestBudget())->fits());
}

// Where one reader shows too little, the proof splits the plans on which of two waiting
// readers runs first, and the line names both.
TEST(OptimizeTest, ABudgetBelowTheFloorSplitOnTwoReadersIsRefutedBeforeAnySearch) {
  const Graph graph = testing::TwoReadersAtOnce();
  const OptimizeResult result = RefutedBeforeAnySearch(graph, 5, /*proved=*/true);
  EXPECT_EQ(
      result.reason,
      "no plan fits in 5 bytes, recomputing or not: every plan peaks at 6 bytes or more "
      "(proof: the recompute floor raised by what a later reader needs: at the first run "
      "of op 8 'v8', its inputs, outputs and workspace, 3 bytes, 2 bytes that no "
      "recomputation frees, and, below that peak, 1 bytes that op 9 'v9' reads, held "
      "there or made from, as no run in between can make them; in the plans that run op "
      "13 'v13' first, its first run holds as many, and in the others what it reads "
      "waits too)");
}

// Between the floor of every plan (4 units) and that of the plans the search makes (5:
// the loss's gradient, read again last and returned by the step, exists once there), a
// budget is refuted before any search too, and the line says what a plan would have to
// make again.
TEST(OptimizeTest, ABudgetBelowTheSearchedFloorIsRefutedBeforeAnySearch) {
  const Graph graph =
      testing::MakeTrainingChainReadingTheLossGradientLast(4, 1000, /*returned=*/true)
          .builder.Build();
  const OptimizeResult result = RefutedBeforeAnySearch(graph, 4500);
  EXPECT_EQ(
      result.reason,
      "no plan budget mode can make fits in 4500 bytes: 5000 bytes are live at op 6 "
      "'v6' in every plan that never makes the step's outputs again (proof: the "
      "searched floor, its inputs, outputs and workspace, 3000 bytes, and 2000 bytes "
      "live there that no recomputation budget mode makes frees; no plan, recomputing "
      "or not, needs less than 4000 bytes)");

  OptimizeOptions options;
  options.alignment = 1;
  options.memory_budget = 5000;
  const OptimizeResult searched = *Optimize(graph, options, TestBudget());
  EXPECT_EQ(searched.conclusion, Conclusion::kPlanned);
  EXPECT_TRUE(searched.recompute.has_value());
}

// Budget mode on a transformer whose eager order is at the bound of every order:
// reordering cannot fit three fifths of its peak, recomputation does, and the plan says
// so.
TEST(OptimizeTest, ABudgetOnlyRecomputationMeetsIsMetByRecomputing) {
  const Graph graph =
      *LoadGraph(std::string(OLLA_SOURCE_DIR) + "/models/gpt2_small.train.b1.json.gz");
  OptimizeOptions options;
  const OptimizeResult unbudgeted = *Optimize(graph, options, TestBudget());
  const int64_t budget_bytes = unbudgeted.lower_bound_bytes() / 5 * 3;
  options.memory_budget = budget_bytes;
  // Each of the search's measurements expands the 2,462-op graph: a small work limit.
  const OptimizeResult result = *Optimize(graph, options, Budget::OfWork(5'000));
  ASSERT_TRUE(result.fits());
  EXPECT_LE(result.arena_bytes(), budget_bytes);
  ASSERT_TRUE(result.plan->recomputes());
  ASSERT_TRUE(result.expanded.has_value());
  ASSERT_TRUE(result.recompute.has_value());
  EXPECT_EQ(result.recompute->recomputed_ops,
            static_cast<int32_t>(result.plan->recompute.size()));
  EXPECT_GT(result.recompute->added_fraction(), 0.0);
  EXPECT_LT(result.recompute->added_fraction(), 0.5);
  EXPECT_FALSE(result.optimal_order());  // The reordering bound no longer applies.
  const PlanCheck check = CheckPlan(graph, *result.plan);
  ASSERT_TRUE(check.valid) << check.error;
  EXPECT_LE(check.peak_live_bytes, budget_bytes);
  const auto recompute =
      std::find_if(result.stages.begin(), result.stages.end(),
                   [](const StageReport& s) { return s.name == "recompute"; });
  ASSERT_NE(recompute, result.stages.end());

  // Forbidden, the same budget has no plan that fits.
  options.recompute = false;
  const OptimizeResult refused = *Optimize(graph, options, TestBudget());
  EXPECT_FALSE(refused.fits());
  EXPECT_FALSE(refused.recompute.has_value());
  EXPECT_EQ(refused.conclusion, Conclusion::kRefuted);  // By the bound of every order.
}

// The joint refinement never loses and, where the order with the smallest peak does
// not give the smallest arena, finds the plan that does, proven optimal. Sizes rounded
// to 16 bytes change which order packs best: on seed 34 (one of three among the first
// 150 random DAGs) the order-then-place plan is 32 bytes above the joint optimum.
TEST(OptimizeTest, JointRefinementFindsSmallerArenasThanOrderThenPlace) {
  for (const uint64_t seed : {1, 2, 4, 5, 6, 8, 34}) {  // Each solved in under 2 s.
    RandomDagOptions dag;
    dag.ops = 7 + static_cast<int32_t>(seed % 4);
    dag.seed = seed;
    dag.max_outputs = 3;
    const Graph graph = RandomDag(dag);
    OptimizeOptions options;
    options.alignment = 16;
    const OptimizeResult two_stage = *Optimize(graph, options, TestBudget());
    options.schedule.method = kJointMethod;
    const OptimizeResult joint = *Optimize(graph, options, TestBudget());
    ASSERT_TRUE(joint.plan && joint.check.valid) << "seed " << seed;
    ASSERT_TRUE(joint.unrefined_arena_bytes.has_value()) << "seed " << seed;
    EXPECT_EQ(*joint.unrefined_arena_bytes, two_stage.arena_bytes()) << "seed " << seed;
    EXPECT_TRUE(joint.joint_optimal) << "seed " << seed;
    EXPECT_LE(joint.arena_bytes(), two_stage.arena_bytes()) << "seed " << seed;
    if (seed == 34) {
      EXPECT_EQ(joint.arena_bytes(), two_stage.arena_bytes() - 32);
    }
  }
}

TEST(OptimizeTest, BadOptionsAreErrors) {
  const Graph graph = testing::Figure3Graph();
  OptimizeOptions options;
  options.alignment = 0;
  EXPECT_FALSE(Optimize(graph, options, TestBudget()).ok());
  options = {};
  options.placement_method = "magic";
  EXPECT_THAT(Optimize(graph, options, TestBudget()).status().message(),
              ::testing::StartsWith("placement_method: must be one of auto"));
  options = {};
  options.schedule.method = "magic";
  EXPECT_FALSE(Optimize(graph, options, TestBudget()).ok());
  options = {};
  options.memory_budget = -1;
  EXPECT_FALSE(Optimize(graph, options, TestBudget()).ok());
}

}  // namespace
}  // namespace olla
