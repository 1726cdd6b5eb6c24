#include "olla/remat/order_floor_proof.h"

#include <gtest/gtest.h>

#include "olla/analysis/lifetimes.h"
#include "olla/analysis/timeline.h"
#include "olla/remat/added_cost_bound.h"
#include "olla/remat/order_floor.h"

#include "graph_builder.h"

namespace olla {
namespace {

// vit_b_16's peak in miniature. An activation `a` (1 byte), made from `h` (6 bytes,
// which nothing reads after `a` is made), waits across a gradient spike for a backward
// op two steps later. The spike's op reads a mask (4 bytes) and makes a gradient `s`
// (6 bytes) that both later steps read; both are drawn at random, so no run makes
// them again. The order's floor takes `a` off the spike's step (12 bytes), but a plan
// that drops it must make it again before its reader, from `h` made again or held,
// while `s` waits: 14 bytes. Holding `a` (13 bytes, the eager order's peak) is the
// least any plan on the order peaks at.
Graph WaitingAcrossASpike() {
  testing::GraphBuilder b;
  const BufferId input = b.Buffer(1, "input");
  const BufferId h = b.Buffer(6, "h");
  b.Op({h}, {input});
  const BufferId a = b.Buffer(1, "a");
  b.Op({a}, {h});
  const BufferId out = b.Buffer(1, "out");
  b.Op({out}, {a});
  const BufferId mask = b.Buffer(4, "mask");
  b.Op({mask}, {out});
  b.ops().back().random = true;
  auto backward = [&](std::initializer_list<BufferId> reads, int64_t size) {
    const BufferId next = b.Buffer(size);
    b.Op({next}, reads);
    b.ops().back().phase = Phase::kBackward;
    return next;
  };
  const BufferId loss_grad = backward({out}, 1);
  const BufferId spike = backward({loss_grad, mask}, 6);
  b.ops().back().random = true;
  const BufferId grad = backward({spike}, 1);
  const BufferId grad_a = backward({grad, spike, a}, 1);
  b.Op({b.Output(1, "input_grad")}, {grad_a, input});
  b.ops().back().phase = Phase::kBackward;
  for (olla::Op& op : b.ops()) op.type = "aten::mul.Tensor";
  return b.Build();
}

int64_t Peak(const Graph& graph, const Order& order) {
  return ComputeTimeline(graph, order, ComputeLifetimes(graph, order)).peak_bytes;
}

TEST(OrderFloorProofTest, AWaitingActivationMadeAgainNeedsItsInputsAndTheSpike) {
  const Graph graph = WaitingAcrossASpike();
  const Order order = EagerOrder(graph);
  ASSERT_EQ(Peak(graph, order), 13);
  const OrderFloor floor = ComputeOrderFloor(graph, order);
  ASSERT_EQ(floor.bytes, 12);

  const OrderFloor raised = RaiseOrderFloor(graph, order, floor, 13, Budget());
  EXPECT_EQ(raised.bytes, 13);
  EXPECT_EQ(raised.step, floor.step);  // The spike's.
  EXPECT_GE(ProveOrderFloor(graph, order, 13, Budget()).bytes, 13);
  // The eager order peaks at 13: nothing above it is shown.
  EXPECT_LT(ProveOrderFloor(graph, order, 14, Budget()).bytes, 14);
  // Budget mode's bound says so: no plan on the order fits 12 bytes.
  EXPECT_FALSE(BoundAddedCost(graph, order, 12, Budget()).reachable);
}

TEST(OrderFloorProofTest, OutOfBudgetItShowsTheOrdersFloorAndNoMore) {
  const Graph graph = WaitingAcrossASpike();
  const Order order = EagerOrder(graph);
  const OrderFloor floor = ComputeOrderFloor(graph, order);
  EXPECT_EQ(RaiseOrderFloor(graph, order, floor, 13, Budget::OfWork(0)).bytes,
            floor.bytes);
  EXPECT_EQ(ProveOrderFloor(graph, order, 13, Budget::OfWork(0)).bytes, floor.bytes);
}

}  // namespace
}  // namespace olla
