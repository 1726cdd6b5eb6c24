#include "olla/generators/hard_graphs.h"

#include <gtest/gtest.h>

#include "olla/generators/generated.h"

namespace olla {
namespace {

std::vector<int64_t> Sizes(const Graph& graph) {
  std::vector<int64_t> sizes;
  for (const Buffer& buffer : graph.buffers()) sizes.push_back(buffer.size);
  return sizes;
}

TEST(HardGraphsTest, MultiBranchHasItsShapeAndIsDeterministic) {
  MultiBranchOptions options;
  options.blocks = 5;
  const Graph graph = MultiBranchGraph(options);
  EXPECT_EQ(graph.num_ops(), 5 * (4 * 3 + 1) + 1);
  // Breadth first: the block's first ops are every branch's first op, one after another.
  EXPECT_EQ(graph.op(OpId(0)).name, "block0.branch0.op0");
  EXPECT_EQ(graph.op(OpId(1)).name, "block0.branch1.op0");
  EXPECT_EQ(Sizes(graph), Sizes(MultiBranchGraph(options)));
}

TEST(HardGraphsTest, HourglassesCarryDoubledSkipsFromTheEncoder) {
  UNetOptions options;
  options.stacks = 2;
  const Graph graph = UNetGraph(options);
  EXPECT_EQ(graph.num_ops(), 2 * (4 * (2 * 2 + 4) + 1) + 1);
  // The skip projection runs in the encoder, right after its level's convs, doubles
  // the level's tensor, and is read only by the decoder's concatenation.
  const OpId skip(2);
  EXPECT_EQ(graph.op(skip).name, "hourglass0.enc0.skip");
  const BufferId projected = graph.op(skip).allocates[0];
  const BufferId level = graph.op(OpId(1)).allocates[0];
  EXPECT_EQ(graph.buffer(projected).size, 2 * graph.buffer(level).size);
  ASSERT_EQ(graph.users(projected).size(), 1u);
  EXPECT_EQ(graph.op(graph.users(projected)[0]).name, "hourglass0.dec0.cat");
  EXPECT_EQ(Sizes(graph), Sizes(UNetGraph(options)));
}

TEST(HardGraphsTest, TransformerBlocksListEachStageAcrossTheHeads) {
  TransformerBlocksOptions options;
  options.blocks = 3;
  const Graph graph = TransformerBlocksGraph(options);
  EXPECT_EQ(graph.num_ops(), 3 * (6 * 8 + 9) + 1);
  EXPECT_EQ(graph.op(OpId(1)).name, "block0.q0");
  EXPECT_EQ(graph.op(OpId(2)).name, "block0.q1");
  EXPECT_EQ(graph.op(OpId(1 + 3 * 8)).name, "block0.scores0");
  // A head's scores are sequence x sequence floats, its q sequence x (width / heads).
  const int64_t q = graph.buffer(graph.op(OpId(1)).allocates[0]).size;
  const int64_t scores = graph.buffer(graph.op(OpId(1 + 3 * 8)).allocates[0]).size;
  const int64_t sequence = q / 4 / (512 / 8);
  EXPECT_EQ(scores, 4 * sequence * sequence);
  EXPECT_GE(sequence, 384);
  EXPECT_LE(sequence, 640);
}

TEST(HardGraphsTest, LayeredSegmentsReadNeighboursOfTheLayerBefore) {
  LayeredOptions options;
  options.segments = 2;
  options.width = 10;
  const Graph graph = LayeredGraph(options);
  EXPECT_EQ(graph.num_ops(), 2 * 7 * 10 + 1);
  int64_t neighbours = 0;
  for (const Op& op : graph.ops()) {
    EXPECT_LE(op.uses.size(), 3u) << op.name;
    neighbours += static_cast<int64_t>(op.uses.size()) - 1;
  }
  EXPECT_GT(neighbours, 50);  // Some ops read beside their column; joins read two.
  for (const Buffer& buffer : graph.buffers()) {
    if (buffer.name == "loss") continue;
    EXPECT_GE(buffer.size, 512);
    EXPECT_LE(buffer.size, 4 << 20);
  }
  options.seed = 2;
  EXPECT_NE(Sizes(graph), Sizes(LayeredGraph(options)));
}

TEST(HardGraphsTest, MixturesDrawEveryShapeAndReachTheirOps) {
  MixtureOptions options;
  options.ops = 5000;
  const Graph graph = MixtureGraph(options);
  EXPECT_GE(graph.num_ops(), 5000);
  EXPECT_LT(graph.num_ops(), 5000 + 500);
  int shapes[4] = {};
  for (const Op& op : graph.ops()) {
    shapes[0] += op.name.find(".branches.") != std::string::npos;
    shapes[1] += op.name.find(".hourglass.") != std::string::npos;
    shapes[2] += op.name.find(".transformer.") != std::string::npos;
    shapes[3] += op.name.find(".layered.") != std::string::npos;
  }
  for (int count : shapes) EXPECT_GT(count, 0);
  EXPECT_EQ(Sizes(graph), Sizes(MixtureGraph(options)));
}

TEST(HardGraphsTest, GeneratedShapesHaveAboutTheirOps) {
  for (std::string_view shape : kGeneratedShapes) {
    for (int32_t ops : {10, 1000, 20000}) {
      StatusOr<Graph> graph = GenerateGraph(shape, ops, 3);
      ASSERT_TRUE(graph.ok()) << shape;
      EXPECT_LE(graph->num_ops(), std::max(ops + 500, 2 * ops)) << shape << " " << ops;
      if (ops >= 1000) {
        EXPECT_GE(graph->num_ops(), ops * 85 / 100) << shape << " " << ops;
      }
    }
  }
  const StatusOr<Graph> unknown = GenerateGraph("spiral", 100, 1);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(), "unknown graph shape 'spiral'");
}

}  // namespace
}  // namespace olla
