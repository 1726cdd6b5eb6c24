#include "olla/remat/recompute_floor_proof.h"

#include <gtest/gtest.h>

#include "olla/remat/recompute_floor.h"

#include "waiting_across_a_spike.h"

namespace olla {
namespace {

// At the spike (op 5) the recompute floor counts its footprint (the loss's gradient, the
// mask and `s`: 11 bytes) and `input`, which the last op reads: 12. The proof adds `a`,
// which op 7 reads: made again after the spike, it needs `h` (6 bytes) made again while
// `s` (6 bytes, drawn at random) waits, 14 bytes or more; so below 13 every plan holds
// it at the spike.
TEST(RecomputeFloorProofTest, AnActivationReadAfterASpikeIsHeldAcrossIt) {
  const Graph graph = testing::WaitingAcrossASpike();
  const RecomputeFloor floors = ComputeRecomputeFloor(graph);
  ASSERT_EQ(floors.every_plan.bytes, 12);

  const RecomputeFloor raised = RaiseRecomputeFloors(graph, floors, 20, Budget());
  EXPECT_EQ(raised.every_plan.bytes, 13);
  EXPECT_EQ(raised.every_plan.op, OpId(5));      // The spike.
  EXPECT_EQ(raised.every_plan.reader, OpId(7));  // grad_a's op, reading `a`.
  EXPECT_EQ(raised.every_plan.waiting_bytes, 1);
  EXPECT_GE(raised.searched.bytes, raised.every_plan.bytes);

  // Up to 12 it shows every plan peaks above (12 bytes are refuted); the eager order
  // peaks at 13, so nothing above 13 is shown.
  EXPECT_EQ(RaiseRecomputeFloors(graph, floors, 12, Budget()).every_plan.bytes, 13);
  EXPECT_EQ(RaiseRecomputeFloors(graph, floors, 13, Budget()).every_plan.bytes, 13);
}

// Each max flow is a unit of work: without any, the floors come back as they were.
TEST(RecomputeFloorProofTest, OutOfBudgetItShowsTheFloorAndNoMore) {
  const Graph graph = testing::WaitingAcrossASpike();
  const RecomputeFloor floors = ComputeRecomputeFloor(graph);
  const RecomputeFloor raised =
      RaiseRecomputeFloors(graph, floors, 20, Budget::OfWork(0));
  EXPECT_EQ(raised.every_plan.bytes, floors.every_plan.bytes);
  EXPECT_EQ(raised.searched.bytes, floors.searched.bytes);
}

}  // namespace
}  // namespace olla
