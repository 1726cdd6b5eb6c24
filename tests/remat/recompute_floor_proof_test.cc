#include "olla/remat/recompute_floor_proof.h"

#include <gtest/gtest.h>

#include "olla/remat/recompute_floor.h"

#include "two_readers_at_once.h"
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

// At the GELU's backward (op 8) the floor counts its three operands, the gradient from
// above (drawn at random: the residual join reads it later) and x0 (the last op reads
// it): 5 bytes. The weight gradient (op 9) needs the normalised input: held, 6; made
// again, x1 is made from h0 (2 bytes) while the GELU's gradient and the gradient from
// above wait. A plan may run the residual join's side first, freeing the gradient from
// above, so no one reader shows it; split on whether the layer below's backward (op 13,
// reading h0) runs before the weight gradient, both sides peak at 6, the least any plan
// peaks at (remat_brute_force_test.cc).
TEST(RecomputeFloorProofTest, TwoReadersWaitingAtOnceAreSplitOnWhichRunsFirst) {
  const Graph graph = testing::TwoReadersAtOnce();
  const RecomputeFloor floors = ComputeRecomputeFloor(graph);
  ASSERT_EQ(floors.every_plan.bytes, 5);
  ASSERT_EQ(floors.every_plan.op, OpId(8));

  const FloorAt raised = RaiseRecomputeFloors(graph, floors, 20, Budget()).every_plan;
  EXPECT_EQ(raised.bytes, 6);
  EXPECT_EQ(raised.op, OpId(8));
  EXPECT_EQ(raised.reader, OpId(9));
  EXPECT_EQ(raised.later, OpId(13));
  EXPECT_EQ(raised.footprint_bytes + raised.kept_bytes + raised.waiting_bytes, 6);
  EXPECT_EQ(RaiseRecomputeFloors(graph, floors, 5, Budget()).every_plan.bytes, 6);
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
