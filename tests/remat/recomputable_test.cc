#include "olla/remat/recomputable.h"

#include <gtest/gtest.h>

#include "training_chain.h"

namespace olla {
namespace {

using testing::MakeTrainingChainReadingTheLossGradientLast;

TEST(RecomputableTest, AnActivationsCopiesServeItsBackwardReaders) {
  auto chain = MakeTrainingChainReadingTheLossGradientLast(3, 100);
  const Graph graph = chain.builder.Build();
  const RecomputableBuffers found = FindRecomputableBuffers(graph, Reach::kActivations);
  const BufferId a1 = chain.activations[1];
  EXPECT_TRUE(found.droppable[a1.index()]);
  EXPECT_EQ(found.late_users[a1.index()], std::vector<OpId>{chain.backward[1]});
}

// The loss's gradient is read by the last layer's backward op and again by the
// residual join after every other backward op: only the whole step's search drops it,
// its copy serving the join.
TEST(RecomputableTest, AGradientReadAgainFarOffIsDroppableOverTheWholeStep) {
  auto chain = MakeTrainingChainReadingTheLossGradientLast(3, 100);
  const Graph graph = chain.builder.Build();
  const BufferId loss_grad = graph.op(chain.backward[2]).uses.front();
  const OpId join(graph.num_ops() - 1);
  EXPECT_FALSE(
      FindRecomputableBuffers(graph, Reach::kActivations).droppable[loss_grad.index()]);
  const RecomputableBuffers whole = FindRecomputableBuffers(graph, Reach::kWholeStep);
  EXPECT_TRUE(whole.droppable[loss_grad.index()]);
  EXPECT_EQ(whole.late_users[loss_grad.index()], std::vector<OpId>{join});
}

// Read by two neighbouring ops and once more far off: the original serves the two,
// the copy the far one (dropped in between, where it waits).
TEST(RecomputableTest, AGradientsCopyServesTheReadersPastItsWidestGap) {
  testing::GraphBuilder b;
  const BufferId input = b.Buffer(8, "input");
  const BufferId grad = b.Buffer(100, "grad");
  b.Op({grad}, {input});
  std::vector<OpId> readers;
  readers.push_back(b.Op({b.Buffer(100)}, {grad}));
  readers.push_back(b.Op({b.Buffer(100)}, {grad}));
  for (int i = 0; i < 3; ++i) b.Op({b.Buffer(100)}, {input});
  readers.push_back(b.Op({b.Output(100, "out")}, {grad}));
  for (auto& op : b.ops()) op.phase = Phase::kBackward;
  const Graph graph = b.Build();
  const RecomputableBuffers found = FindRecomputableBuffers(graph);
  EXPECT_TRUE(found.droppable[grad.index()]);
  EXPECT_EQ(found.late_users[grad.index()], std::vector<OpId>{readers[2]});
  // The step's output is never made again.
  EXPECT_FALSE(found.copyable[graph.op(readers[2]).allocates.front().index()]);
}

}  // namespace
}  // namespace olla
