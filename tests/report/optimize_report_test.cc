#include "olla/report/optimize_report.h"

#include <gtest/gtest.h>

#include "olla/io/graph_json.h"

namespace olla {
namespace {

TEST(OptimizeReportTest, JsonCarriesTheDocumentedKeys) {
  const Graph graph = *LoadGraph(std::string(OLLA_SOURCE_DIR) + "/examples/figure3.json");
  const OptimizeResult result = *Optimize(graph, {}, Budget::OfWork(100'000));
  const nlohmann::ordered_json json = OptimizeReportJson(graph, result);
  for (const char* key : {"eager_reserved_bytes", "eager_peak_live_bytes",
                          "reordered_reserved_bytes", "peak_live_bytes", "arena_bytes",
                          "persistent_bytes", "lower_bound_bytes", "saving_vs_reserved",
                          "optimal_order", "optimal_placement", "seconds", "stages"}) {
    EXPECT_TRUE(json.contains(key)) << key;
  }
  EXPECT_EQ(json["arena_bytes"], 47185920);
  EXPECT_EQ(json["optimal_order"], true);
  EXPECT_EQ(json["stages"].size(), 4u);
  // Figure 3 has no persistent bytes: the saving is the arena against reserved.
  const double reserved = json["eager_reserved_bytes"].get<double>();
  EXPECT_DOUBLE_EQ(json["saving_vs_reserved"].get<double>(),
                   (reserved - 47185920.0) / reserved);
}

TEST(OptimizeReportTest, MarkdownHasTheFiguresAndTheStages) {
  const Graph graph = *LoadGraph(std::string(OLLA_SOURCE_DIR) + "/examples/figure3.json");
  const OptimizeResult result = *Optimize(graph, {}, Budget::OfWork(100'000));
  const std::string markdown = OptimizeReportMarkdown(graph, result);
  EXPECT_NE(markdown.find("# olla plan for olla_figure3"), std::string::npos);
  EXPECT_NE(markdown.find("| olla arena | 47185920 B (45.0 MiB)"), std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| schedule |"), std::string::npos);
}

}  // namespace
}  // namespace olla
