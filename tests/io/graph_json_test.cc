#include "olla/io/graph_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "olla/generators/synthetic.h"

namespace olla {
namespace {

using ::testing::HasSubstr;

const std::string kExamples = std::string(OLLA_SOURCE_DIR) + "/examples/";

TEST(GraphJsonTest, LoadsFigure3) {
  const StatusOr<Graph> graph = LoadGraph(kExamples + "figure3.json");
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  EXPECT_EQ(graph->name(), "olla_figure3");
  EXPECT_EQ(graph->num_ops(), 4);
  EXPECT_EQ(graph->op(OpId(1)).name, "v3");
  EXPECT_EQ(graph->op(OpId(1)).file_id, 3);
  EXPECT_EQ(graph->buffer(BufferId(5)).size, 10485760);
  EXPECT_TRUE(graph->buffer(BufferId(5)).output);
  EXPECT_EQ(graph->buffer(BufferId(0)).kind, BufferKind::kInput);
}

TEST(GraphJsonTest, LoadsEveryFieldOfTheTrainingExamples) {
  const StatusOr<Graph> graph = LoadGraph(kExamples + "mlp_sgd.json");
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  const Buffer& weight = graph->buffer(BufferId(2));
  EXPECT_EQ(weight.name, "fc1.weight");
  EXPECT_TRUE(weight.persistent);
  EXPECT_EQ(weight.kind, BufferKind::kParameter);
  EXPECT_EQ(weight.shape, (std::vector<int64_t>{256, 784}));
  EXPECT_EQ(weight.dtype, "float32");
  EXPECT_EQ(graph->op(OpId(13)).phase, Phase::kOptimizer);
  EXPECT_EQ(graph->explicit_edges().size(), 5u);
  const StatusOr<Graph> residual = LoadGraph(kExamples + "residual_inplace_view.json");
  ASSERT_TRUE(residual.ok()) << residual.status().message();
  EXPECT_EQ(residual->op(OpId(2)).writes, (std::vector<BufferId>{BufferId(3)}));  // relu_
}

TEST(GraphJsonTest, WritesAndRandomRoundTrip) {
  const std::string text =
      R"({"version": 1, "buffers": [{"id": 5, "size": 4}, {"id": 6, "size": 4}],
          "ops": [{"id": 0, "allocates": [5], "random": true},
                  {"id": 1, "type": "aten::relu_", "uses": [5], "writes": [5]},
                  {"id": 2, "allocates": [6], "uses": [5]}],
          "precedence": [[1, 2]]})";
  const StatusOr<Graph> graph = ParseGraph(text);
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  EXPECT_TRUE(graph->op(OpId(0)).random);
  EXPECT_FALSE(graph->op(OpId(1)).random);
  EXPECT_EQ(graph->op(OpId(1)).writes, (std::vector<BufferId>{BufferId(0)}));
  const std::string written = GraphToJson(*graph);
  EXPECT_NE(written.find("\"writes\": [5]"), std::string::npos) << written;
  EXPECT_NE(written.find("\"random\": true"), std::string::npos) << written;
  EXPECT_EQ(GraphToJson(*ParseGraph(written)), written);
}

// Both readers take a cost in seconds, integer or not, and the writer gives it back.
TEST(GraphJsonTest, MeasuredCostsRoundTrip) {
  const std::string text =
      R"({"version": 1, "buffers": [{"id": 5, "size": 4}, {"id": 6, "size": 4}],
          "ops": [{"id": 0, "allocates": [5], "cost": 0.000125},
                  {"id": 1, "allocates": [6], "uses": [5], "cost": 2}]})";
  const StatusOr<Graph> graph = ParseGraph(text);
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  EXPECT_TRUE(graph->has_measured_costs());
  EXPECT_EQ(graph->op(OpId(0)).cost, 0.000125);
  EXPECT_EQ(graph->op(OpId(1)).cost, 2.0);
  const std::string written = GraphToJson(*graph);
  EXPECT_NE(written.find("\"cost\": 0.000125"), std::string::npos) << written;
  EXPECT_EQ(GraphToJson(*ParseGraph(written)), written);
  EXPECT_FALSE(ParseGraph(R"({"version": 1, "buffers": [{"id": 0, "size": 4}],
                              "ops": [{"id": 0, "allocates": [0]}]})")
                   ->has_measured_costs());
}

TEST(GraphJsonTest, RoundTripsThroughText) {
  TrainingLikeOptions options;
  options.layers = 40;
  const Graph original = TrainingLikeGraph(options);
  const std::string text = GraphToJson(original);
  const StatusOr<Graph> reread = ParseGraph(text);
  ASSERT_TRUE(reread.ok()) << reread.status().message();
  EXPECT_EQ(GraphToJson(*reread), text);
  const StatusOr<Graph> figure3 = LoadGraph(kExamples + "figure3.json");
  EXPECT_EQ(GraphToJson(*ParseGraph(GraphToJson(*figure3))), GraphToJson(*figure3));
}

TEST(GraphJsonTest, DefaultsAreMinimal) {
  const StatusOr<Graph> graph = ParseGraph(
      R"({"version": 1, "buffers": [{"id": 0, "size": 4}], "ops": [{"id": 0, "allocates": [0]}]})");
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  EXPECT_EQ(graph->buffer(BufferId(0)).kind, BufferKind::kActivation);
  EXPECT_FALSE(graph->buffer(BufferId(0)).persistent);
  EXPECT_EQ(graph->op(OpId(0)).phase, Phase::kForward);
  EXPECT_EQ(graph->op(OpId(0)).workspace, 0);
}

// Each message names the JSON path; the full catalogue is in tests/errors/graph.
TEST(GraphJsonTest, ErrorsNameTheJsonPath) {
  auto error = [](const std::string& text) {
    return ParseGraph(text).status().message();
  };
  EXPECT_EQ(error(R"({"version": 1, "buffers": [], "ops": [{"id": 0, "uses": [7]}]})"),
            "ops[0].uses[0]: no buffer with id 7");
  EXPECT_EQ(
      error(
          R"({"version": 1, "buffers": [{"id": 1, "size": 2}, {"id": 1, "size": 2}], "ops": []})"),
      "buffers[1].id: duplicate buffer id 1 (also at buffers[0])");
  EXPECT_EQ(
      error(R"({"version": 1, "buffers": [], "ops": [{"id": 0, "phase": "sideways"}]})"),
      "ops[0].phase: unknown value 'sideways' (expected one of: forward, backward, "
      "optimizer)");
  EXPECT_EQ(
      error(R"({"version": 1, "buffers": [], "ops": [{"id": 0}], "precedence": [[0]]})"),
      "precedence[0]: expected a pair [before, after] of op ids, got 1 elements");
  EXPECT_THAT(error("{\"version\": 1,"), HasSubstr("malformed JSON: "));
}

TEST(GraphJsonTest, LoadErrorsNameTheFile) {
  const StatusOr<Graph> graph = LoadGraph(kExamples + "figure3.eager.plan.json");
  EXPECT_THAT(graph.status().message(),
              HasSubstr("figure3.eager.plan.json: format: expected \"olla.graph\""));
}

}  // namespace
}  // namespace olla
