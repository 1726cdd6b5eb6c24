#include "olla/analysis/lifetimes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "graph_builder.h"

namespace olla {
namespace {

using ::testing::ElementsAre;

TEST(LifetimesTest, Figure3EagerOrder) {
  const Graph graph = testing::Figure3Graph();
  const Lifetimes life = ComputeLifetimes(graph, EagerOrder(graph));
  // e1 input, e2 read by v3 (step 1), e3 read by v2 (step 2), e4 and e5 read by v4,
  // e6 the output.
  EXPECT_THAT(life.of, ElementsAre(Lifetime{0, 1}, Lifetime{0, 2}, Lifetime{0, 3},
                                   Lifetime{1, 4}, Lifetime{2, 4}, Lifetime{3, 4}));
}

TEST(LifetimesTest, Figure3ReorderedOrder) {
  const Graph graph = testing::Figure3Graph();
  Order order{{OpId(0), OpId(2), OpId(1), OpId(3)}};
  const Lifetimes life = ComputeLifetimes(graph, order);
  EXPECT_EQ(life[BufferId(1)], (Lifetime{0, 3}));  // e2 now waits for v3 at step 2.
  EXPECT_EQ(life[BufferId(2)], (Lifetime{0, 2}));
}

TEST(LifetimesTest, UnusedOutputsOutputsInputsAndPersistentBuffers) {
  testing::GraphBuilder b;
  const BufferId unused = b.Buffer(4);
  const BufferId result = b.Output(4);
  const BufferId input = b.Buffer(4);
  const BufferId unused_input = b.Buffer(4);
  const BufferId weight = b.Persistent(4);
  b.Op({unused, result}, {weight});
  b.Op({}, {});
  b.Op({}, {input});
  b.Op({}, {});
  const Graph graph = b.Build();
  const Lifetimes life = ComputeLifetimes(graph, EagerOrder(graph));
  EXPECT_EQ(life[unused], (Lifetime{0, 1}));        // Allocated while its op runs.
  EXPECT_EQ(life[result], (Lifetime{0, 4}));        // To the end of the step.
  EXPECT_EQ(life[input], (Lifetime{0, 3}));         // From the start to its last use.
  EXPECT_EQ(life[unused_input], (Lifetime{0, 1}));  // Exists at the start.
  EXPECT_TRUE(life[weight].empty());                // Outside the arena.
  EXPECT_TRUE((Lifetime{2, 5}).Contains(4));
  EXPECT_FALSE((Lifetime{2, 5}).Contains(5));
}

}  // namespace
}  // namespace olla
