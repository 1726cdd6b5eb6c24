#include "olla/remat/cost.h"

#include <gtest/gtest.h>

#include "olla/plan/recompute_rules.h"

#include "graph_builder.h"

namespace olla {
namespace {

TEST(OpCostTest, ConvolutionsAndMatmulsCountFlopsPointwiseOpsBytes) {
  testing::GraphBuilder b;
  const BufferId image = b.Buffer(4 * 8 * 3 * 32 * 32);
  b.buffers().back().shape = {8, 3, 32, 32};
  const BufferId weight = b.Persistent(4 * 16 * 3 * 3 * 3);
  b.buffers().back().shape = {16, 3, 3, 3};
  const BufferId conv_out = b.Buffer(4 * 8 * 16 * 32 * 32);
  b.buffers().back().shape = {8, 16, 32, 32};
  const OpId conv = b.Op({conv_out}, {image, weight});
  b.ops().back().type = "aten::convolution";
  const BufferId a = b.Buffer(4 * 64 * 128);
  b.buffers().back().shape = {64, 128};
  const BufferId w = b.Persistent(4 * 128 * 32);
  b.buffers().back().shape = {128, 32};
  const BufferId bias = b.Persistent(4 * 32);
  b.buffers().back().shape = {32};
  const BufferId mm_out = b.Buffer(4 * 64 * 32);
  b.buffers().back().shape = {64, 32};
  b.Op({a}, {});
  const OpId addmm = b.Op({mm_out}, {bias, a, w});
  b.ops().back().type = "aten::addmm";
  const BufferId relu_out = b.Buffer(4 * 64 * 32);
  const OpId relu = b.Op({relu_out}, {mm_out});
  b.ops().back().type = "aten::relu";
  const OpId view = b.Op({}, {relu_out});
  b.ops().back().type = "aten::view";
  const Graph graph = b.Build();

  // 2 * output elements * (3 * 3 * 3) per output; its bytes cost more here.
  const int64_t conv_bytes = 4 * (8 * 3 * 32 * 32 + 16 * 27 + 8 * 16 * 32 * 32);
  EXPECT_EQ(OpCost(graph, conv),
            std::max(2LL * 8 * 16 * 32 * 32 * 27,
                     static_cast<long long>(kUnitsPerByte * conv_bytes)));
  EXPECT_GT(kUnitsPerByte * conv_bytes, 2LL * 8 * 16 * 32 * 32 * 27);
  // 2 * 64 * 32 * K with K = 128; more than its bytes times kUnitsPerByte.
  EXPECT_EQ(OpCost(graph, addmm),
            std::max<int64_t>(
                2LL * 64 * 32 * 128,
                kUnitsPerByte * (4 * 32 + 4 * 64 * 128 + 4 * 128 * 32 + 4 * 64 * 32)));
  EXPECT_EQ(OpCost(graph, relu), kUnitsPerByte * 2 * 4 * 64 * 32);
  EXPECT_EQ(OpCost(graph, view), 0);
  EXPECT_EQ(StepCost(graph), OpCost(graph, conv) + OpCost(graph, addmm) +
                                 OpCost(graph, relu) + OpCost(graph, OpId(1)));
}

// Measured costs replace the estimate, views included, in nanoseconds.
TEST(OpCostTest, MeasuredCostsAreNanoseconds) {
  testing::GraphBuilder b;
  const BufferId big = b.Buffer(1 << 20);
  const OpId make = b.Op({big}, {});
  b.ops().back().cost = 0.5e-3;
  const OpId view = b.Op({}, {big});
  b.ops().back().type = "aten::view";
  b.ops().back().cost = 1e-6;
  Graph graph = b.Build();
  EXPECT_EQ(OpCost(graph, make), 500'000);
  EXPECT_EQ(OpCost(graph, view), 1'000);
  EXPECT_EQ(StepCost(graph), 501'000);
  EXPECT_STREQ(CostSource(graph), "measured");
  b.ops()[make.index()].cost.reset();
  b.ops()[view.index()].cost.reset();
  graph = b.Build();
  EXPECT_EQ(OpCost(graph, make), int64_t{1 << 20} * kUnitsPerByte);
  EXPECT_STREQ(CostSource(graph), "estimated from shapes");
}

TEST(RecomputeRulesTest, OperatorNamesWithoutNamespaceAndOverload) {
  EXPECT_EQ(BaseOperatorName("aten::add_.Tensor"), "add_");
  EXPECT_EQ(BaseOperatorName("aten::relu"), "relu");
  EXPECT_EQ(BaseOperatorName("matmul"), "matmul");
  Op op;
  op.type = "aten::hardtanh_";
  EXPECT_TRUE(WritesInPlace(op));
  op.type = "aten::native_dropout";
  EXPECT_TRUE(DrawsRandomNumbers(op));
  op.type = "aten::native_batch_norm";
  EXPECT_TRUE(WritesInPlace(op));
  op.type = "aten::native_layer_norm";
  EXPECT_FALSE(DrawsRandomNumbers(op));
  EXPECT_FALSE(WritesInPlace(op));
}

}  // namespace
}  // namespace olla
