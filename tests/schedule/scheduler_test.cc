#include "olla/schedule/scheduler.h"

#include <gtest/gtest.h>

#include "olla/analysis/topology.h"
#include "olla/generators/generated.h"
#include "olla/generators/synthetic.h"
#include "olla/io/graph_json.h"
#include "olla/schedule/heuristics.h"
#include "olla/schedule/memory_state.h"
#include "olla/simulation/plan_checker.h"

#include "graph_builder.h"
#include "reference.h"
#include "schedule_fixtures.h"

namespace olla {
namespace {

// The smallest peak over the orders the rules allow when updates run as soon as they
// are ready: the orders that following the rules leaves unchanged. (Without the updates
// rule the timing rules lose nothing, so the optimum over all orders is the reference.)
int64_t BruteForceOptimumWithUpdatesAsap(const Graph& graph) {
  const MemoryModel model(graph);
  const Timings timings(model, ScheduleRules{});
  int64_t best = INT64_MAX;
  testing::ForEachValidOrder(graph, [&](const Order& order) {
    if (FollowRules(model, timings, order) != order) return;
    best = std::min(best, PeakOf(model, order));
  });
  return best;
}

ScheduleResult ScheduleChecked(const Graph& graph, const std::string& method,
                               ScheduleRules rules, int64_t work = 10'000'000) {
  ScheduleOptions options;
  options.method = method;
  options.rules = rules;
  StatusOr<ScheduleResult> result = Schedule(graph, options, Budget::OfWork(work));
  OLLA_CHECK(result.ok(), result.status().message());
  const MemoryModel model(graph);
  OLLA_CHECK(CheckValidOrder(graph, result->order).ok(), "invalid order");
  OLLA_CHECK(PeakOf(model, result->order) == result->peak_bytes,
             "peak is not the order's");
  return std::move(result).value();
}

TEST(SchedulerTest, DpEqualsBruteForceOnRandomDags) {
  const ScheduleRules free_updates{.updates_asap = false};
  // Sizes 4 to 10, and three graphs of 12 ops (brute force grows as the orders do).
  for (uint64_t seed = 1; seed <= 48; ++seed) {
    const int32_t ops = seed > 45 ? 12 : 4 + static_cast<int32_t>(seed % 7);
    const Graph graph = testing::RandomScheduleGraph(ops, seed);
    const int64_t optimum = testing::BruteForceOptimalPeak(graph);
    const ScheduleResult result = ScheduleChecked(graph, "dp", free_updates);
    ASSERT_EQ(result.peak_bytes, optimum) << "seed " << seed;
    ASSERT_TRUE(result.optimal) << "seed " << seed;
    ASSERT_LE(result.lower_bound_bytes, optimum) << "seed " << seed;
  }
}

// Where the rule raises the eager order's peak, the search drops it (scheduler.cc) and
// the optimum over every order is the reference.
TEST(SchedulerTest, DpEqualsBruteForceUnderTheUpdatesRule) {
  int dropped = 0;
  for (uint64_t seed = 1; seed <= 61; ++seed) {
    const int32_t ops = seed > 60 ? 12 : 4 + static_cast<int32_t>(seed % 6);
    const Graph graph = testing::RandomScheduleGraph(ops, seed, 0.3);
    const ScheduleResult result = ScheduleChecked(graph, "dp", ScheduleRules{});
    const MemoryModel model(graph);
    const bool rule_hurts_eager = EagerSchedule(model, ScheduleRules{}).peak_bytes >
                                  PeakOf(model, EagerOrder(graph));
    ASSERT_EQ(result.updates_rule_dropped, rule_hurts_eager) << "seed " << seed;
    dropped += rule_hurts_eager ? 1 : 0;
    const int64_t optimum = rule_hurts_eager ? testing::BruteForceOptimalPeak(graph)
                                             : BruteForceOptimumWithUpdatesAsap(graph);
    ASSERT_EQ(result.peak_bytes, optimum) << "seed " << seed;
    std::string pieces;
    for (const PieceReport& piece : result.pieces)
      pieces +=
          " " + piece.method + (piece.optimal ? "+" : "-") + std::to_string(piece.ops);
    ASSERT_TRUE(result.optimal) << "seed " << seed << " peak " << result.peak_bytes
                                << " bound " << result.lower_bound_bytes << " heuristic "
                                << result.best_heuristic_peak_bytes << pieces;
  }
  EXPECT_GT(dropped, 0);  // Both cases occur among the seeds.
  EXPECT_LT(dropped, 61);
}

// The generators meant to be hard (generators/hard_graphs.h): each eager order is far
// from what the schedule finds, and all but the layered DAGs are proven optimal.
TEST(SchedulerTest, HardShapesAreFarFromTheirEagerOrder) {
  const std::vector<std::pair<std::string, double>> shapes = {
      {"multi-branch", 0.5}, {"unet", 0.8}, {"transformer", 0.8}, {"mixture", 0.6}};
  for (const auto& [shape, at_most] : shapes) {
    const Graph graph = *GenerateGraph(shape, 600, 1);
    const ScheduleResult result = ScheduleChecked(graph, "auto", ScheduleRules{});
    EXPECT_TRUE(result.optimal) << shape;
    EXPECT_LT(static_cast<double>(result.peak_bytes),
              at_most * static_cast<double>(result.eager_peak_bytes))
        << shape;
  }
  // The layered DAGs: a diagonal sweep holds a fraction of the eager order's two
  // layers, and the bound stays below it (a gap the bench reports).
  const Graph layered = *GenerateGraph("layered", 300, 1);
  const ScheduleResult result =
      ScheduleChecked(layered, "auto", ScheduleRules{}, /*work=*/50'000);
  EXPECT_LT(result.peak_bytes * 3, result.eager_peak_bytes);
  EXPECT_LT(result.lower_bound_bytes, result.peak_bytes);
}

// The zoo's graphs whose last gap only case splits close (docs/schedule.md): the
// bound every cut gives is below the best order, a dive of splits reaches it.
TEST(SchedulerTest, CaseSplitsProveZooOrdersOptimal) {
  for (const char* name : {"efficientnet_b0.train.b1", "googlenet.train.b1"}) {
    StatusOr<Graph> graph =
        LoadGraph(std::string(OLLA_SOURCE_DIR) + "/models/" + name + ".json.gz");
    ASSERT_TRUE(graph.ok()) << graph.status().message();
    const ScheduleResult result = ScheduleChecked(*graph, "auto", ScheduleRules{});
    EXPECT_TRUE(result.optimal) << name;
    EXPECT_EQ(result.bound_method, "case-split") << name;
    EXPECT_GE(result.case_splits, 1) << name;
    EXPECT_EQ(result.lower_bound_bytes, result.peak_bytes) << name;
  }
}

TEST(SchedulerTest, NoMethodIsWorseThanTheBestHeuristicAndEveryOrderChecks) {
  TrainingLikeOptions options;
  options.layers = 40;
  const Graph graph = TrainingLikeGraph(options);
  for (const char* method : kScheduleMethods) {
    if (std::string(method) == "ilp") continue;  // Its own tests (lifetime_ilp_test.cc).
    const ScheduleResult result = ScheduleChecked(graph, method, ScheduleRules{});
    if (std::string(method) != "eager") {
      EXPECT_LE(result.peak_bytes, result.best_heuristic_peak_bytes) << method;
    }
    EXPECT_LE(result.lower_bound_bytes, result.peak_bytes) << method;
    Plan plan;
    plan.order = result.order;
    const PlanCheck check = CheckPlan(graph, plan);
    EXPECT_TRUE(check.valid) << method << ": " << check.error;
    EXPECT_EQ(check.peak_live_bytes, result.peak_bytes) << method;
  }
}

TEST(SchedulerTest, EveryMethodGivesValidOrdersOnRandomDags) {
  // Validity only: the searches are cut short by a small work limit.
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    const Graph graph =
        testing::RandomScheduleGraph(3 + static_cast<int32_t>(seed * 2), seed, 0.2);
    for (const char* method : kScheduleMethods) {
      for (bool updates_asap : {false, true}) {
        ScheduleOptions options;
        options.method = method;
        options.rules.updates_asap = updates_asap;
        const StatusOr<ScheduleResult> result =
            Schedule(graph, options, Budget::OfWork(20));
        ASSERT_TRUE(result.ok()) << method;
        Plan plan;
        plan.order = result->order;
        const PlanCheck check = CheckPlan(graph, plan);
        ASSERT_TRUE(check.valid) << method << " seed " << seed << ": " << check.error;
        ASSERT_EQ(check.peak_live_bytes, result->peak_bytes)
            << method << " seed " << seed;
        ASSERT_LE(result->lower_bound_bytes, result->peak_bytes) << method;
      }
    }
  }
}

TEST(SchedulerTest, IlpMethodFindsAndProvesFigure3sOptimum) {
  for (IlpHorizon horizon : {IlpHorizon::kOneOpPerStep, IlpHorizon::kPaper}) {
    ScheduleOptions options;
    options.method = "ilp";
    options.rules.updates_asap = false;
    options.ilp_horizon = horizon;
    const StatusOr<ScheduleResult> result =
        Schedule(testing::Figure3Graph(), options, Budget::OfWork(1'000'000));
    ASSERT_TRUE(result.ok());
    EXPECT_EQ(result->peak_bytes, 47185920);
    EXPECT_TRUE(result->optimal);
    ASSERT_TRUE(result->ilp.has_value());
    EXPECT_TRUE(result->ilp->optimal);
  }
}

TEST(SchedulerTest, UnknownMethodIsAnError) {
  ScheduleOptions options;
  options.method = "magic";
  EXPECT_FALSE(
      Schedule(testing::Figure3Graph(), options, Budget::OfWork(1'000'000)).ok());
}

}  // namespace
}  // namespace olla
