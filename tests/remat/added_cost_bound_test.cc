#include "olla/remat/added_cost_bound.h"

#include <gtest/gtest.h>

#include "olla/analysis/lifetimes.h"
#include "olla/analysis/timeline.h"
#include "olla/remat/cost.h"
#include "olla/remat/remat_search.h"

#include "graph_builder.h"

namespace olla {
namespace {

// An activation `a` (5 units) made from `y` (4 units), which nothing reads after `a` is
// made, and read by a backward op after a spike of 10 units. At the target `a` may not
// be live at the spike: it is made again after it, from `y` made again too (`y` held
// through the spike would leave no room). A bound that priced `a`'s run alone was
// below the optimum.
TEST(AddedCostBoundTest, ARunOfAnOpWhoseInputDiedPaysForThatInputToo) {
  testing::GraphBuilder b;
  const BufferId input = b.Buffer(1, "input");
  const BufferId y = b.Buffer(4, "y");
  const OpId make_y = b.Op({y}, {input});
  const BufferId a = b.Buffer(5, "a");
  const OpId make_a = b.Op({a}, {y});
  const BufferId out = b.Buffer(1, "out");
  b.Op({out}, {a});
  BufferId grad = b.Buffer(1, "loss_grad");
  b.Op({grad}, {out});
  auto backward = [&](std::initializer_list<BufferId> reads, int64_t size) {
    const BufferId next = b.Buffer(size);
    b.Op({next}, reads);
    b.ops().back().phase = Phase::kBackward;
    grad = next;
  };
  backward({grad}, 10);  // A spike.
  backward({grad}, 1);
  backward({grad, a}, 1);
  b.Op({b.Output(1, "input_grad")}, {grad, input});
  b.ops().back().phase = Phase::kBackward;
  for (olla::Op& op : b.ops()) op.type = "aten::mul.Tensor";
  const Graph graph = b.Build();
  const Order order = EagerOrder(graph);
  ASSERT_EQ(ComputeTimeline(graph, order, ComputeLifetimes(graph, order)).peak_bytes, 17);

  constexpr int64_t kTarget = 12;  // The input, a gradient and the spike.
  const AddedCostBound bound =
      BoundAddedCost(graph, order, kTarget, Budget::OfWork(1000));
  ASSERT_TRUE(bound.reachable);
  EXPECT_TRUE(bound.proven_optimal);
  // Both runs, down by the solver's tolerance (a unit).
  const int64_t both = OpCost(graph, make_y) + OpCost(graph, make_a);
  EXPECT_GE(bound.cost, both - 1);
  EXPECT_LE(bound.cost, both);
  RematOptions options;
  options.target_bytes = kTarget;
  const RematResult found = Rematerialize(graph, order, options, Budget::OfWork(2000));
  ASSERT_TRUE(found.reached) << found.peak_bytes;
  EXPECT_EQ(found.added_cost, both);
}

}  // namespace
}  // namespace olla
