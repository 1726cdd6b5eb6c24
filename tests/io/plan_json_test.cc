#include "olla/io/plan_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "olla/io/graph_json.h"
#include "olla/simulation/plan_checker.h"

namespace olla {
namespace {

using ::testing::HasSubstr;

const std::string kExamples = std::string(OLLA_SOURCE_DIR) + "/examples/";

Graph Figure3() { return std::move(LoadGraph(kExamples + "figure3.json")).value(); }

TEST(PlanJsonTest, LoadsBothExamplePlans) {
  const Graph graph = Figure3();
  const StatusOr<Plan> eager = LoadPlan(kExamples + "figure3.eager.plan.json", graph);
  ASSERT_TRUE(eager.ok()) << eager.status().message();
  EXPECT_EQ(eager->order, EagerOrder(graph));
  EXPECT_EQ(eager->alignment, 512);
  EXPECT_EQ(eager->provenance.peak_live_bytes, 62914560);
  const StatusOr<Plan> reordered =
      LoadPlan(kExamples + "figure3.reordered.plan.json", graph);
  ASSERT_TRUE(reordered.ok());
  EXPECT_EQ(reordered->order.ops,
            (std::vector<OpId>{OpId(0), OpId(2), OpId(1), OpId(3)}));
  EXPECT_EQ(reordered->offsets[4], 41943040);
  EXPECT_EQ(CheckPlan(graph, *reordered).peak_live_bytes, 47185920);
}

TEST(PlanJsonTest, Version1PlansStillRead) {
  // Version 1: offsets without workspace, which stays out of the arena.
  const Graph graph = Figure3();
  const StatusOr<Plan> plan = ParsePlan(
      R"({"version": 1, "order": [1, 2, 3, 4], "alignment": 512, "arena_bytes": 47185920,
          "offsets": [{"buffer": 1, "offset": 20971520}, {"buffer": 2, "offset": 31457280},
                      {"buffer": 3, "offset": 0}, {"buffer": 4, "offset": 0},
                      {"buffer": 5, "offset": 41943040}, {"buffer": 6, "offset": 31457280}]})",
      graph);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_FALSE(plan->places_workspace());
  EXPECT_TRUE(CheckPlan(graph, *plan).valid) << CheckPlan(graph, *plan).error;
}

TEST(PlanJsonTest, RoundTripsThroughText) {
  const Graph graph = Figure3();
  Plan plan = *LoadPlan(kExamples + "figure3.reordered.plan.json", graph);
  plan.provenance.options = {{"method", "hand"}, {"time_limit", "10"}};
  const std::string text = PlanToJson(graph, plan);
  const StatusOr<Plan> reread = ParsePlan(text, graph);
  ASSERT_TRUE(reread.ok()) << reread.status().message();
  EXPECT_EQ(PlanToJson(graph, *reread), text);
}

// Version 3: the recomputations, then an order and offsets over the expanded graph;
// a plan without any is still written as version 2.
TEST(PlanJsonTest, RecomputationsRoundTripAndNameTheExpandedGraph) {
  const Graph graph = Figure3();
  const Plan plan = *LoadPlan(kExamples + "figure3.recompute.plan.json", graph);
  ASSERT_EQ(plan.recompute.size(), 1u);
  EXPECT_EQ(plan.recompute[0].op, OpId(0));  // v1
  EXPECT_EQ(plan.recompute[0].file_id, 10);
  EXPECT_EQ(plan.recompute[0].copy_ids, (std::vector<int64_t>{10, 11}));
  EXPECT_EQ(plan.recompute[0].serves, (std::vector<OpId>{OpId(2)}));  // v2
  EXPECT_EQ(plan.order.size(), 5);
  const PlanCheck check = CheckPlan(graph, plan);
  ASSERT_TRUE(check.valid) << check.error;
  const std::string text = PlanToJson(graph, plan);
  EXPECT_THAT(text, HasSubstr("\"version\": 3"));
  EXPECT_THAT(text,
              HasSubstr(R"({"op": 1, "id": 10, "copies": [10, 11], "serves": [2]})"));
  EXPECT_THAT(text, HasSubstr(R"("order": [1, 3, 10, 2, 4])"));
  EXPECT_EQ(PlanToJson(graph, *ParsePlan(text, graph)), text);
  const Plan without = *LoadPlan(kExamples + "figure3.reordered.plan.json", graph);
  EXPECT_THAT(PlanToJson(graph, without), HasSubstr("\"version\": 2"));
}

TEST(PlanJsonTest, OrderOnlyPlans) {
  const Graph graph = Figure3();
  const StatusOr<Plan> plan =
      ParsePlan(R"({"version": 1, "order": [1, 2, 3, 4]})", graph);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_FALSE(plan->has_placement());
  EXPECT_EQ(ParsePlan(PlanToJson(graph, *plan), graph)->order, plan->order);
  EXPECT_THAT(ParsePlan(R"({"version": 1, "order": [], "arena_bytes": 5})", graph)
                  .status()
                  .message(),
              HasSubstr("arena_bytes and alignment need an offsets array"));
}

TEST(PlanJsonTest, ErrorsNameTheJsonPath) {
  const Graph graph = Figure3();
  auto error = [&](const std::string& text) {
    return ParsePlan(text, graph).status().message();
  };
  EXPECT_EQ(error(R"({"version": 1, "order": [1, 9]})"),
            "order[1]: the graph has no op 9");
  EXPECT_EQ(
      error(
          R"({"version": 1, "order": [], "arena_bytes": 1, "offsets": [{"buffer": 77, "offset": 0}]})"),
      "offsets[0].buffer: the graph has no buffer 77");
  EXPECT_EQ(
      error(
          R"({"version": 1, "order": [], "arena_bytes": 1, "offsets": [{"buffer": 1, "offset": 0}, {"buffer": 1, "offset": 0}]})"),
      "offsets[1].buffer: buffer 1 'e1' is given two offsets");
  EXPECT_EQ(
      error(R"({"version": 4, "order": []})"),
      "version: unsupported plan format version 4 (this olla reads versions 1 to 3)");
  EXPECT_EQ(error(R"({"version": 2, "order": [], "recompute": []})"),
            "recompute: needs plan format version 3");
  EXPECT_EQ(error(R"({"version": 2, "order": [], "arena_bytes": 1, "offsets": []})"),
            "top level: missing required field 'workspace'");
  EXPECT_EQ(
      error(
          R"({"version": 1, "order": [], "arena_bytes": 1, "offsets": [], "workspace": []})"),
      "workspace: needs plan format version 2");
  EXPECT_EQ(
      error(
          R"({"version": 2, "order": [], "arena_bytes": 1, "offsets": [], "workspace": [{"op": 99, "offset": 0}]})"),
      "workspace[0].op: the graph has no op 99");
  EXPECT_EQ(error(R"({"version": 1, "order": [], "offsets": []})"),
            "top level: missing required field 'arena_bytes'");
}

}  // namespace
}  // namespace olla
