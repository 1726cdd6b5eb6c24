#include "olla/schedule/joint_ilp.h"

#include <random>

#include <gtest/gtest.h>

#include "olla/pipeline/arena.h"
#include "olla/placement/place.h"
#include "olla/simulation/plan_checker.h"

#include "reference.h"
#include "schedule_fixtures.h"

namespace olla {
namespace {

// Tests stop on work (CBC nodes, search nodes), never on the clock.
Budget TestBudget() { return Budget::OfWork(10'000'000); }

// A random DAG whose ops sometimes need workspace.
Graph WithWorkspace(const Graph& graph, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Op> ops = graph.ops();
  for (Op& op : ops) {
    if (rng() % 3 == 0) op.workspace = static_cast<int64_t>(1 + rng() % 40);
  }
  return *Graph::Create(graph.name(), graph.buffers(), ops, graph.explicit_edges());
}

// The smallest arena over every valid order, each placed optimally.
int64_t BruteForceArena(const Graph& graph, int64_t alignment) {
  int64_t best = INT64_MAX;
  testing::ForEachValidOrder(graph, [&](const Order& order) {
    const ArenaProblem arena = *MakeArenaProblem(graph, order, alignment);
    PlaceOptions exact;
    exact.method = "exact";
    exact.threads = 1;
    const Placement placement = *Place(arena.problem, exact, TestBudget());
    OLLA_CHECK(placement.optimal(), "the reference placement must be optimal");
    best = std::min(best, placement.arena_bytes);
  });
  return best;
}

TEST(JointIlpTest, IsTheBruteForceOptimumOfOrderAndPlacementTogether) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    const Graph graph = WithWorkspace(
        testing::RandomScheduleGraph(4 + static_cast<int32_t>(seed % 4), seed), seed);
    const int64_t alignment = seed % 2 == 0 ? 1 : 8;
    JointIlpOptions options;
    options.alignment = alignment;
    const JointIlpResult result = SolveJointIlp(graph, options, TestBudget());
    ASSERT_TRUE(result.solved && result.optimal) << "seed " << seed;
    const int64_t optimum = BruteForceArena(graph, alignment);
    EXPECT_EQ(result.plan.arena_bytes, optimum) << "seed " << seed;
    EXPECT_EQ(result.bound_bytes, optimum) << "seed " << seed;
    const PlanCheck check = CheckPlan(graph, result.plan);
    ASSERT_TRUE(check.valid) << "seed " << seed << ": " << check.error;
    EXPECT_LE(check.arena_bytes, result.plan.arena_bytes);
  }
}

TEST(JointIlpTest, AStartIsKeptOrImproved) {
  const Graph graph = WithWorkspace(testing::RandomScheduleGraph(6, 3), 3);
  const Order order = EagerOrder(graph);
  const ArenaProblem arena = *MakeArenaProblem(graph, order, 4);
  PlaceOptions best_fit;
  best_fit.method = "best-fit";
  const Placement greedy = *Place(arena.problem, best_fit, Budget());
  const Plan start = MakePlan(graph, order, arena, greedy);
  JointIlpOptions options;
  options.alignment = 4;
  options.start = start;
  // With no work left the model is not even solved: the caller keeps its start.
  const JointIlpResult kept = SolveJointIlp(graph, options, Budget::OfWork(0));
  EXPECT_FALSE(kept.solved);
  const JointIlpResult solved = SolveJointIlp(graph, options, TestBudget());
  ASSERT_TRUE(solved.solved);
  EXPECT_LE(solved.plan.arena_bytes, greedy.arena_bytes);
  EXPECT_TRUE(CheckPlan(graph, solved.plan).valid);
}

TEST(JointIlpTest, LargeModelsAreNotBuilt) {
  const Graph graph = testing::RandomScheduleGraph(12, 5);
  JointIlpOptions options;
  options.max_constraints = 10;
  const JointIlpResult result = SolveJointIlp(graph, options, TestBudget());
  EXPECT_TRUE(result.too_large);
  EXPECT_FALSE(result.solved);
}

}  // namespace
}  // namespace olla
