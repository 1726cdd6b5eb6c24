#include "olla/simulation/plan_checker.h"

#include <random>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "olla/analysis/lifetimes.h"
#include "olla/analysis/timeline.h"
#include "olla/generators/synthetic.h"

#include "graph_builder.h"

namespace olla {
namespace {

using ::testing::HasSubstr;
using testing::kMiB;

// The hand-made plan of examples/figure3.reordered.plan.json.
Plan ReorderedFigure3Plan() {
  Plan plan;
  plan.order.ops = {OpId(0), OpId(2), OpId(1), OpId(3)};
  plan.offsets = {20 * kMiB, 30 * kMiB, 0, 0, 40 * kMiB, 30 * kMiB};
  plan.arena_bytes = 45 * kMiB;
  plan.alignment = 512;
  return plan;
}

TEST(PlanCheckerTest, AcceptsAValidPlanAndRecomputes) {
  const PlanCheck check = CheckPlan(testing::Figure3Graph(), ReorderedFigure3Plan());
  EXPECT_TRUE(check.valid) << check.error;
  EXPECT_EQ(check.peak_live_bytes, 47185920);
  EXPECT_EQ(check.arena_bytes, 47185920);
}

TEST(PlanCheckerTest, AcceptsAnOrderOnly) {
  Plan plan;
  plan.order = EagerOrder(testing::Figure3Graph());
  const PlanCheck check = CheckPlan(testing::Figure3Graph(), plan);
  EXPECT_TRUE(check.valid);
  EXPECT_EQ(check.peak_live_bytes, 62914560);
}

TEST(PlanCheckerTest, RejectsAPlantedOverlap) {
  Plan plan = ReorderedFigure3Plan();
  plan.offsets[4] = 35 * kMiB;  // e5 now overlaps e2 [30, 40) MiB while both are live.
  const PlanCheck check = CheckPlan(testing::Figure3Graph(), plan);
  EXPECT_FALSE(check.valid);
  EXPECT_EQ(
      check.error,
      "buffer 4 'e5' [36700160, 41943040) overlaps buffer 1 'e2' [31457280, 41943040) "
      "while both are live at step 1 (op 2 'v2')");
}

TEST(PlanCheckerTest, RejectsMisalignedAndOutOfArenaOffsets) {
  Plan misaligned = ReorderedFigure3Plan();
  misaligned.offsets[0] = 20 * kMiB + 256;
  EXPECT_THAT(CheckPlan(testing::Figure3Graph(), misaligned).error,
              HasSubstr("buffer 0 'e1' at offset 20971776 is not aligned to 512"));
  Plan outside = ReorderedFigure3Plan();
  outside.offsets[4] = 41 * kMiB;
  EXPECT_THAT(CheckPlan(testing::Figure3Graph(), outside).error,
              HasSubstr("ends outside the arena of 47185920 bytes"));
  Plan negative = ReorderedFigure3Plan();
  negative.offsets[3] = -512;
  EXPECT_THAT(CheckPlan(testing::Figure3Graph(), negative).error,
              HasSubstr("negative offset"));
  Plan huge = ReorderedFigure3Plan();
  huge.offsets[3] = INT64_MAX - 511;  // offset + size overflows.
  EXPECT_THAT(CheckPlan(testing::Figure3Graph(), huge).error,
              HasSubstr("outside the arena"));
  Plan zero_alignment = ReorderedFigure3Plan();
  zero_alignment.alignment = 0;
  EXPECT_THAT(CheckPlan(testing::Figure3Graph(), zero_alignment).error,
              HasSubstr("alignment 0 is not positive"));
}

TEST(PlanCheckerTest, RejectsOrdersThatBreakADependency) {
  Plan plan = ReorderedFigure3Plan();
  plan.order.ops = {OpId(1), OpId(0), OpId(2), OpId(3)};
  const PlanCheck check = CheckPlan(testing::Figure3Graph(), plan);
  EXPECT_FALSE(check.valid);
  EXPECT_EQ(check.error,
            "order runs op 3 'v3' at step 0, before op 1 'v1' at step 1, which must "
            "precede it");
  plan.order.ops = {OpId(0), OpId(2), OpId(2), OpId(3)};
  EXPECT_THAT(CheckPlan(testing::Figure3Graph(), plan).error,
              HasSubstr("runs op 2 'v2' twice"));
  plan.order.ops = {OpId(0), OpId(2), OpId(1)};
  EXPECT_THAT(CheckPlan(testing::Figure3Graph(), plan).error,
              HasSubstr("order has 3 ops"));
}

TEST(PlanCheckerTest, RejectsMissingAndPersistentOffsets) {
  Plan plan = ReorderedFigure3Plan();
  plan.offsets[5] = std::nullopt;
  EXPECT_EQ(CheckPlan(testing::Figure3Graph(), plan).error,
            "buffer 5 'e6' has no offset");
  testing::GraphBuilder b;
  const BufferId w = b.Persistent(8);
  const BufferId x = b.Buffer(8);
  b.Op({x}, {w});
  Plan with_weight;
  with_weight.order.ops = {OpId(0)};
  with_weight.offsets = {0, 0};
  with_weight.arena_bytes = 8;
  EXPECT_THAT(CheckPlan(b.Build(), with_weight).error,
              HasSubstr("is persistent and must not be placed"));
}

TEST(PlanCheckerTest, HonoursExplicitEdgesAndZeroSizeBuffers) {
  testing::GraphBuilder b;
  const BufferId empty = b.Buffer(0);
  const BufferId x = b.Buffer(16);
  const OpId first = b.Op({empty, x}, {});
  const OpId second = b.Op({}, {});
  const OpId third = b.Op({}, {x});
  b.Edge(second, third);
  const Graph graph = b.Build();
  Plan plan;
  plan.order.ops = {first, second, third};
  plan.offsets = {0, 0};  // A zero-size buffer shares its offset with anything.
  plan.arena_bytes = 16;
  EXPECT_TRUE(CheckPlan(graph, plan).valid);
  plan.order.ops = {first, third, second};
  EXPECT_THAT(CheckPlan(graph, plan).error,
              HasSubstr("op 2 'v2' at step 1, before op 1 'v1'"));
}

// Random offsets on random graphs: the sweep agrees with a pairwise check.
TEST(PlanCheckerTest, OverlapSweepMatchesPairwiseCheck) {
  std::mt19937_64 random(5);
  int valid = 0, invalid = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    RandomDagOptions options;
    options.ops = 4;
    options.seed = seed;
    options.max_size = 4;
    const Graph graph = RandomDag(options);
    Plan plan;
    plan.order = EagerOrder(graph);
    plan.arena_bytes = 16;
    for (const Buffer& buffer : graph.buffers()) {
      const auto slots = static_cast<uint64_t>(plan.arena_bytes - buffer.size + 1);
      plan.offsets.push_back(static_cast<int64_t>(random() % slots));
    }
    const Lifetimes life = ComputeLifetimes(graph, plan.order);
    bool expected = true;
    for (int32_t a = 0; a < graph.num_buffers(); ++a) {
      for (int32_t c = a + 1; c < graph.num_buffers(); ++c) {
        const Lifetime& la = life.of[static_cast<size_t>(a)];
        const Lifetime& lc = life.of[static_cast<size_t>(c)];
        const int64_t oa = *plan.offsets[static_cast<size_t>(a)];
        const int64_t oc = *plan.offsets[static_cast<size_t>(c)];
        const int64_t sa = graph.buffer(BufferId(a)).size;
        const int64_t sc = graph.buffer(BufferId(c)).size;
        const bool same_time = la.start < lc.end && lc.start < la.end;
        const bool same_bytes = oa < oc + sc && oc < oa + sa && sa > 0 && sc > 0;
        if (same_time && same_bytes) expected = false;
      }
    }
    const PlanCheck check = CheckPlan(graph, plan);
    ASSERT_EQ(check.valid, expected) << "seed " << seed << ": " << check.error;
    (expected ? valid : invalid) += 1;
  }
  EXPECT_GT(valid, 10);
  EXPECT_GT(invalid, 10);
}

TEST(PlanCheckerTest, PeakAgreesWithTheTimeline) {
  TrainingLikeOptions options;
  options.layers = 200;
  const Graph graph = TrainingLikeGraph(options);
  Plan plan;
  plan.order = EagerOrder(graph);
  const MemoryTimeline timeline =
      ComputeTimeline(graph, plan.order, ComputeLifetimes(graph, plan.order));
  EXPECT_EQ(CheckPlan(graph, plan).peak_live_bytes, timeline.peak_bytes);
}

}  // namespace
}  // namespace olla
