#include "olla/graph/order.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "olla/graph/graph.h"

#include "graph_builder.h"

namespace olla {
namespace {

TEST(OrderTest, EagerOrderIsTheGraphOrder) {
  const Order order = EagerOrder(testing::Figure3Graph());
  EXPECT_THAT(order.ops, ::testing::ElementsAre(OpId(0), OpId(1), OpId(2), OpId(3)));
  EXPECT_EQ(order.size(), 4);
}

}  // namespace
}  // namespace olla
