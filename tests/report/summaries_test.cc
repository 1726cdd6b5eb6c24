#include "olla/report/summaries.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "olla/io/graph_json.h"
#include "olla/io/plan_json.h"

namespace olla {
namespace {

const std::string kExamples = std::string(OLLA_SOURCE_DIR) + "/examples/";

TEST(ReportTest, EagerJsonCarriesTheDocumentedKeys) {
  const Graph graph = *LoadGraph(kExamples + "figure3.json");
  const nlohmann::ordered_json json = EagerReportJson(graph, SimulateEager(graph));
  for (const char* key : {"ops", "buffers", "persistent_bytes", "eager_peak_live_bytes",
                          "eager_reserved_bytes", "lower_bound_bytes"}) {
    EXPECT_TRUE(json.contains(key)) << key;
  }
  EXPECT_EQ(json["eager_peak_live_bytes"], 62914560);
  EXPECT_EQ(json["eager_peak_op"], 3);  // File id of v3.
  EXPECT_EQ(json["lower_bound_bytes"], 47185920);
}

TEST(ReportTest, CheckJsonReportsFailures) {
  const Graph graph = *LoadGraph(kExamples + "figure3.json");
  Plan plan = *LoadPlan(kExamples + "figure3.reordered.plan.json", graph);
  plan.offsets[0] = 1;
  const nlohmann::ordered_json json = PlanCheckJson(graph, plan, CheckPlan(graph, plan));
  EXPECT_EQ(json["valid"], false);
  EXPECT_THAT(json["error"].get<std::string>(),
              ::testing::HasSubstr("not aligned to 512"));
  EXPECT_EQ(json["peak_live_bytes"], 47185920);
}

TEST(ReportTest, CheckTextSaysWhenThePlanIsAnOrderOnly) {
  const Graph graph = *LoadGraph(kExamples + "figure3.json");
  Plan plan;
  plan.order = EagerOrder(graph);
  EXPECT_THAT(PlanCheckText(graph, plan, CheckPlan(graph, plan)),
              ::testing::HasSubstr("none: the plan is an order only"));
}

}  // namespace
}  // namespace olla
