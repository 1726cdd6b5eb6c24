#include "olla/graph/cycle.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "olla/graph/graph.h"

#include "graph_builder.h"

namespace olla {
namespace {

TEST(CycleTest, AcyclicGraphHasNone) {
  EXPECT_TRUE(FindCycle(testing::Figure3Graph()).empty());
}

// Graph::Create rejects cycles, so FindCycle is exercised through the message it
// produces; a long cycle checks the iterative search keeps the order of the ops.
TEST(CycleTest, LongCycleIsReportedInEdgeOrder) {
  testing::GraphBuilder b;
  std::vector<OpId> ops;
  for (int i = 0; i < 5000; ++i) ops.push_back(b.Op({}, {}));
  for (int i = 0; i + 1 < 5000; ++i)
    b.Edge(ops[static_cast<size_t>(i)], ops[static_cast<size_t>(i + 1)]);
  b.Edge(ops.back(), ops.front());
  const std::string message = b.Create().status().message();
  EXPECT_THAT(message,
              ::testing::StartsWith("precedence has a cycle: op 0 'v0' -> op 1 'v1'"));
  EXPECT_THAT(message, ::testing::EndsWith("op 4999 'v4999' -> op 0 'v0'"));
}

}  // namespace
}  // namespace olla
