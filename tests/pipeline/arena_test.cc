#include "olla/pipeline/arena.h"

#include <gtest/gtest.h>

#include "olla/io/plan_json.h"
#include "olla/placement/place.h"
#include "olla/simulation/plan_checker.h"

#include "graph_builder.h"

namespace olla {
namespace {

// One op allocating 100 B with 300 B of workspace, then another allocating 100 B:
// before workspace had a place, `olla check` printed "fragmentation -50 %" here.
Graph WorkspaceGraph() {
  testing::GraphBuilder builder;
  const BufferId a = builder.Buffer(100);
  const BufferId b = builder.Output(100);
  builder.Op({a}, {}, 300);
  builder.Op({b}, {a});
  return builder.Build();
}

TEST(ArenaTest, SizesAreRoundedAndWorkspaceGetsARow) {
  const Graph graph = WorkspaceGraph();
  const StatusOr<ArenaProblem> arena = MakeArenaProblem(graph, EagerOrder(graph), 512);
  ASSERT_TRUE(arena.ok()) << arena.status().message();
  ASSERT_EQ(arena->problem.size(), 3);
  for (const PlacementBuffer& row : arena->problem.buffers) {
    EXPECT_EQ(row.size, 512);
    EXPECT_EQ(row.alignment, 512);
  }
  EXPECT_FALSE(arena->buffer[2].valid());
  EXPECT_EQ(arena->workspace_of[2], OpId(0));
  EXPECT_EQ(arena->problem.buffers[2].start, 0);
  EXPECT_EQ(arena->problem.buffers[2].end, 1);
  // a and its workspace at step 0, a and b at step 1: two blocks at most.
  EXPECT_EQ(ComputeLiveBytesBound(arena->problem).bytes, 1024);
}

TEST(ArenaTest, ThePlanPlacesWorkspaceAndTheArenaIsNeverBelowThePeak) {
  const Graph graph = WorkspaceGraph();
  const Order order = EagerOrder(graph);
  const ArenaProblem arena = *MakeArenaProblem(graph, order, 1);
  const StatusOr<Placement> placement = Place(arena.problem, {}, Budget::OfWork(1000));
  ASSERT_TRUE(placement.ok());
  const Plan plan = MakePlan(graph, order, arena, *placement);
  ASSERT_TRUE(plan.places_workspace());
  ASSERT_TRUE(plan.workspace_offsets[0].has_value());
  EXPECT_FALSE(plan.workspace_offsets[1].has_value());
  const PlanCheck check = CheckPlan(graph, plan);
  ASSERT_TRUE(check.valid) << check.error;
  EXPECT_EQ(check.peak_live_bytes, 400);
  EXPECT_EQ(check.arena_bytes, 400);
}

TEST(ArenaTest, WorkspaceRoundTripsThroughThePlanFormat) {
  const Graph graph = WorkspaceGraph();
  const Order order = EagerOrder(graph);
  const ArenaProblem arena = *MakeArenaProblem(graph, order, 1);
  const Plan plan = MakePlan(graph, order, arena, *Place(arena.problem, {}, Budget()));
  const std::string text = PlanToJson(graph, plan);
  EXPECT_NE(text.find("\"workspace\": [\n    {\"op\": 0, \"offset\": "),
            std::string::npos)
      << text;
  const StatusOr<Plan> reread = ParsePlan(text, graph);
  ASSERT_TRUE(reread.ok()) << reread.status().message();
  EXPECT_EQ(reread->workspace_offsets, plan.workspace_offsets);
  EXPECT_TRUE(CheckPlan(graph, *reread).valid);
}

TEST(ArenaTest, TheCheckerCatchesWorkspaceOverlappingABuffer) {
  const Graph graph = WorkspaceGraph();
  const Order order = EagerOrder(graph);
  const ArenaProblem arena = *MakeArenaProblem(graph, order, 1);
  Plan plan = MakePlan(graph, order, arena, *Place(arena.problem, {}, Budget()));
  plan.workspace_offsets[0] = *plan.offsets[0];  // On top of buffer a, live with it.
  const PlanCheck check = CheckPlan(graph, plan);
  EXPECT_FALSE(check.valid);
  EXPECT_NE(check.error.find("the workspace of op 0 'v0'"), std::string::npos)
      << check.error;
}

TEST(ArenaTest, ZeroSizedBuffersStayZero) {
  testing::GraphBuilder builder;
  const BufferId empty = builder.Output(0);
  builder.Op({empty}, {});
  const Graph graph = builder.Build();
  const ArenaProblem arena = *MakeArenaProblem(graph, EagerOrder(graph), 512);
  EXPECT_EQ(arena.problem.buffers[0].size, 0);
}

TEST(ArenaTest, RoundedSizesBeyond2To62InAllAreAnError) {
  // Just under 2^62 in all raw and at 512 bytes; 2^62 + 2^30 rounded to 2^30.
  testing::GraphBuilder builder;
  const BufferId a = builder.Output((int64_t{1} << 61) + 1);
  const BufferId b = builder.Output((int64_t{1} << 61) - (int64_t{1} << 30) + 1);
  builder.Op({a, b}, {});
  const Graph graph = builder.Build();
  EXPECT_TRUE(MakeArenaProblem(graph, EagerOrder(graph), 512).ok());
  const StatusOr<ArenaProblem> arena =
      MakeArenaProblem(graph, EagerOrder(graph), int64_t{1} << 30);
  ASSERT_FALSE(arena.ok());
  EXPECT_EQ(arena.status().message(),
            "sizes rounded up to 1073741824 bytes exceed 2^62 bytes in all");
  EXPECT_FALSE(MakeArenaProblem(graph, EagerOrder(graph), 0).ok());
  EXPECT_FALSE(MakeArenaProblem(graph, EagerOrder(graph), (int64_t{1} << 30) + 1).ok());
}

}  // namespace
}  // namespace olla
