#include "olla/analysis/topology.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "graph_builder.h"

namespace olla {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Order MakeOrder(std::initializer_list<int32_t> ids) {
  Order order;
  for (int32_t id : ids) order.ops.push_back(OpId(id));
  return order;
}

TEST(TopologyTest, AcceptsEveryTopologicalOrder) {
  const Graph graph = testing::Figure3Graph();
  EXPECT_TRUE(CheckValidOrder(graph, MakeOrder({0, 1, 2, 3})).ok());
  EXPECT_TRUE(CheckValidOrder(graph, MakeOrder({0, 2, 1, 3})).ok());
}

TEST(TopologyTest, RejectsBrokenOrders) {
  const Graph graph = testing::Figure3Graph();
  EXPECT_THAT(CheckValidOrder(graph, MakeOrder({0, 1, 2})).message(),
              HasSubstr("order has 3 ops, graph has 4"));
  EXPECT_THAT(CheckValidOrder(graph, MakeOrder({0, 1, 1, 3})).message(),
              HasSubstr("order runs op 3 'v3' twice"));
  EXPECT_THAT(CheckValidOrder(graph, MakeOrder({0, 3, 1, 2})).message(),
              HasSubstr("order runs op 4 'v4' (step 1) before op 3 'v3' (step 2)"));
  EXPECT_THAT(CheckValidOrder(graph, MakeOrder({0, 1, 2, 9})).message(),
              HasSubstr("out of range"));
}

TEST(TopologyTest, LevelsGiveEachOpItsSlack) {
  // a -> b -> c, and d with no edges: d may run at any of the three levels.
  testing::GraphBuilder g;
  const BufferId x = g.Buffer(1);
  const BufferId y = g.Buffer(1);
  g.Op({x}, {});
  g.Op({y}, {x});
  g.Op({}, {y});
  g.Op({}, {});
  const Levels levels = ComputeLevels(g.Build());
  EXPECT_EQ(levels.critical_path_length, 3);
  EXPECT_THAT(levels.asap, ElementsAre(0, 1, 2, 0));
  EXPECT_THAT(levels.alap, ElementsAre(0, 1, 2, 2));
}

TEST(TopologyTest, StepsInvertTheOrder) {
  const Graph graph = testing::Figure3Graph();
  EXPECT_THAT(StepsOf(graph, MakeOrder({0, 2, 1, 3})), ElementsAre(0, 2, 1, 3));
  EXPECT_THAT(StepsOf(graph, MakeOrder({3, 0, 1, 2})), ElementsAre(1, 2, 3, 0));
}

}  // namespace
}  // namespace olla
