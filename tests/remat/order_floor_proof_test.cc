#include "olla/remat/order_floor_proof.h"

#include <gtest/gtest.h>

#include "olla/analysis/lifetimes.h"
#include "olla/analysis/timeline.h"
#include "olla/remat/added_cost_bound.h"
#include "olla/remat/order_floor.h"

#include "waiting_across_a_spike.h"

namespace olla {
namespace {

int64_t Peak(const Graph& graph, const Order& order) {
  return ComputeTimeline(graph, order, ComputeLifetimes(graph, order)).peak_bytes;
}

TEST(OrderFloorProofTest, AWaitingActivationMadeAgainNeedsItsInputsAndTheSpike) {
  const Graph graph = testing::WaitingAcrossASpike();
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
  const Graph graph = testing::WaitingAcrossASpike();
  const Order order = EagerOrder(graph);
  const OrderFloor floor = ComputeOrderFloor(graph, order);
  EXPECT_EQ(RaiseOrderFloor(graph, order, floor, 13, Budget::OfWork(0)).bytes,
            floor.bytes);
  EXPECT_EQ(ProveOrderFloor(graph, order, 13, Budget::OfWork(0)).bytes, floor.bytes);
}

}  // namespace
}  // namespace olla
