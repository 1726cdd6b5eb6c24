#include "olla/graph/graph.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "graph_builder.h"

namespace olla {
namespace {

using ::olla::testing::GraphBuilder;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(GraphTest, DerivesProducersUsersAndDataEdges) {
  const Graph graph = testing::Figure3Graph();
  EXPECT_EQ(graph.num_ops(), 4);
  EXPECT_EQ(graph.num_buffers(), 6);
  EXPECT_FALSE(graph.producer(BufferId(0)).valid());  // e1 is a graph input.
  EXPECT_EQ(graph.producer(BufferId(2)), OpId(0));
  EXPECT_THAT(graph.users(BufferId(0)), ElementsAre(OpId(0)));
  EXPECT_THAT(graph.successors(OpId(0)), ElementsAre(OpId(1), OpId(2)));
  EXPECT_THAT(graph.predecessors(OpId(3)), ElementsAre(OpId(1), OpId(2)));
  EXPECT_EQ(graph.num_edges(), 4);
}

TEST(GraphTest, MergesExplicitEdgesAndDeduplicates) {
  GraphBuilder b;
  const BufferId x = b.Buffer(8);
  const BufferId w = b.Persistent(4);
  const OpId a = b.Op({x}, {w});
  const OpId c = b.Op({}, {x, x, w});  // Uses x twice, as add(x, x) does.
  b.Edge(a, c);                        // Duplicates the data edge.
  const Graph graph = b.Build();
  EXPECT_THAT(graph.successors(a), ElementsAre(c));
  EXPECT_THAT(graph.op(c).uses, ElementsAre(x, w));
  EXPECT_THAT(graph.users(x), ElementsAre(c));
  EXPECT_EQ(graph.persistent_bytes(), 4);
}

// The lists keep their orders however the edges come: users in op order, successors
// and predecessors sorted, each edge once.
TEST(GraphTest, SortsNeighboursAndCountsEachEdgeOnce) {
  GraphBuilder b;
  const BufferId x = b.Buffer(8);
  const BufferId y = b.Buffer(8);
  const BufferId z = b.Buffer(8);
  const OpId a = b.Op({x, y}, {});
  const OpId c = b.Op({z}, {y, x});  // Two data edges a -> c.
  const OpId d = b.Op({}, {z, y, x, z});
  b.Edge(c, d);  // Both repeat data edges.
  b.Edge(a, d);
  const Graph graph = b.Build();
  EXPECT_THAT(graph.users(x), ElementsAre(c, d));
  EXPECT_THAT(graph.users(z), ElementsAre(d));
  EXPECT_THAT(graph.op(d).uses, ElementsAre(z, y, x));
  EXPECT_THAT(graph.successors(a), ElementsAre(c, d));
  EXPECT_THAT(graph.successors(c), ElementsAre(d));
  EXPECT_THAT(graph.predecessors(d), ElementsAre(a, c));
  EXPECT_EQ(graph.num_edges(), 3);
}

TEST(GraphTest, DescribesWithFileIdsAndNames) {
  GraphBuilder b;
  const BufferId x = b.Buffer(8, "activation");
  b.Op({x}, {});
  b.buffers()[0].file_id = 42;
  b.ops()[0].file_id = 7;
  b.ops()[0].name = "";
  const Graph graph = b.Build();
  EXPECT_EQ(graph.Describe(x), "buffer 42 'activation'");
  EXPECT_EQ(graph.Describe(OpId(0)), "op 7");
}

TEST(GraphTest, RejectsEmptyGraph) {
  EXPECT_THAT(GraphBuilder().Create().status().message(), HasSubstr("graph has no ops"));
}

TEST(GraphTest, RejectsNegativeSizes) {
  GraphBuilder b;
  b.Op({b.Buffer(-1)}, {});
  EXPECT_EQ(b.Create().status().message(), "buffer 0 'b0' has negative size -1");
  GraphBuilder w;
  w.Op({}, {}, -5);
  EXPECT_EQ(w.Create().status().message(), "op 0 'v0' has negative workspace -5");
}

TEST(GraphTest, RejectsSizesBeyond2To62InAll) {
  // Every sum olla forms later (rounded sizes, live sets, arenas) must fit: the total
  // is capped at 2^62 (core/limits.h).
  GraphBuilder b;
  const BufferId x = b.Buffer(int64_t{1} << 62);
  const BufferId y = b.Buffer(1);
  b.Op({x, y}, {});
  EXPECT_THAT(b.Create().status().message(),
              HasSubstr("buffer sizes exceed 2^62 bytes in all: the running total passes "
                        "4611686018427387904 at buffer 1"));
  GraphBuilder w;
  w.Op({w.Buffer(int64_t{1} << 62)}, {}, 1);
  EXPECT_THAT(w.Create().status().message(),
              HasSubstr("buffer and workspace sizes exceed 2^62 bytes in all"));
  GraphBuilder most;
  most.Op({most.Buffer((int64_t{1} << 62) - 1)}, {}, 1);
  EXPECT_TRUE(most.Create().ok());
  GraphBuilder huge;
  huge.Op({huge.Buffer(INT64_MAX)}, {});
  EXPECT_FALSE(huge.Create().ok());  // Once made the caching allocator's rounding wrap.
}

TEST(GraphTest, RejectsAllocatingAPersistentBuffer) {
  GraphBuilder b;
  b.Op({b.Persistent(4)}, {});
  EXPECT_THAT(b.Create().status().message(),
              HasSubstr("op 0 'v0' allocates persistent buffer 0 'b0'"));
}

TEST(GraphTest, RejectsABufferAllocatedTwice) {
  GraphBuilder b;
  const BufferId x = b.Buffer(4);
  b.Op({x}, {});
  b.Op({x}, {});
  EXPECT_EQ(b.Create().status().message(),
            "buffer 0 'b0' is allocated twice: by op 0 'v0' and by op 1 'v1'");
  GraphBuilder same;
  const BufferId y = same.Buffer(4);
  same.Op({y, y}, {});
  EXPECT_THAT(same.Create().status().message(), HasSubstr("is allocated twice"));
}

TEST(GraphTest, RejectsUseBeforeAllocationInEagerOrder) {
  GraphBuilder b;
  const BufferId x = b.Buffer(4);
  b.Op({}, {x});
  b.Op({x}, {});
  EXPECT_EQ(b.Create().status().message(),
            "eager order is not valid: op 0 'v0' uses buffer 0 'b0' before op 1 'v1' "
            "allocates it");
}

TEST(GraphTest, RejectsEagerOrderBreakingAnExplicitEdge) {
  GraphBuilder b;
  const OpId first = b.Op({}, {});
  const OpId second = b.Op({}, {});
  b.Edge(second, first);
  EXPECT_EQ(b.Create().status().message(),
            "eager order is not valid: op 0 'v0' runs before op 1 'v1', but a precedence "
            "edge requires it after");
}

TEST(GraphTest, NamesTheOpsOfACycle) {
  GraphBuilder b;
  const BufferId x = b.Buffer(4);
  const BufferId y = b.Buffer(4);
  const OpId a = b.Op({x}, {});
  const OpId c = b.Op({y}, {x});
  const OpId d = b.Op({}, {y});
  b.Edge(d, a);
  EXPECT_EQ(b.Create().status().message(),
            "precedence has a cycle: op 0 'v0' -> op 1 'v1' -> op 2 'v2' -> op 0 'v0'");
  GraphBuilder self;
  const OpId s = self.Op({}, {});
  self.Edge(s, s);
  EXPECT_THAT(self.Create().status().message(), HasSubstr("precede itself"));
  (void)c;
}

TEST(GraphTest, RejectsOutOfRangeIndices) {
  GraphBuilder b;
  b.Op({BufferId(3)}, {});
  EXPECT_THAT(b.Create().status().message(), HasSubstr("out of range"));
  GraphBuilder e;
  e.Op({}, {});
  e.Edge(OpId(0), OpId(9));
  EXPECT_THAT(e.Create().status().message(), HasSubstr("out of range"));
}

}  // namespace
}  // namespace olla
