#include "olla/schedule/decomposition.h"

#include <gtest/gtest.h>

#include "olla/analysis/lower_bounds.h"
#include "olla/generators/synthetic.h"
#include "olla/schedule/executor.h"
#include "olla/schedule/piecewise.h"

#include "graph_builder.h"
#include "reference.h"
#include "schedule_fixtures.h"

namespace olla {
namespace {

// Random DAG pieces joined in sequence: every op of a piece feeds the join op, which
// feeds every op of the next piece through one buffer, so each join is a cut.
Graph ChainOfRandomPieces(uint64_t seed, int32_t pieces, int32_t ops_per_piece) {
  testing::GraphBuilder g;
  std::mt19937_64 rng(seed);
  auto size = [&] { return std::uniform_int_distribution<int64_t>(1, 50)(rng); };
  BufferId carried = g.Buffer(size());
  g.Op({carried}, {});
  for (int32_t p = 0; p < pieces; ++p) {
    std::vector<BufferId> made;
    for (int32_t i = 0; i < ops_per_piece; ++i) {
      const BufferId out = g.Buffer(size());
      std::vector<BufferId> uses = {carried};
      if (!made.empty() && rng() % 2) uses.push_back(made[rng() % made.size()]);
      olla::Op& op = g.ops().emplace_back();
      op.file_id = static_cast<int64_t>(g.ops().size() - 1);
      op.allocates = {out};
      op.uses = uses;
      made.push_back(out);
    }
    const BufferId joined = g.Buffer(size());
    olla::Op& join = g.ops().emplace_back();
    join.file_id = static_cast<int64_t>(g.ops().size() - 1);
    join.allocates = {joined};
    join.uses = made;
    carried = joined;
  }
  return g.Build();
}

TEST(DecompositionTest, CutsAreTheJoinsAndEveryCutIsComparableToAll) {
  const Graph graph = ChainOfRandomPieces(3, 3, 4);
  const MemoryModel model(graph);
  const Timings timings(model, {.updates_asap = false});
  const std::vector<Piece> pieces = Decompose(graph, timings);
  const auto reaches = testing::ReferenceReachability(graph);
  int32_t cuts = 0;
  size_t covered = 0;
  for (const Piece& piece : pieces) {
    covered += piece.free_ops.size();
    if (!piece.is_cut) continue;
    ++cuts;
    const OpId cut = piece.free_ops[0];
    for (int32_t i = 0; i < graph.num_ops(); ++i) {
      EXPECT_TRUE(reaches[cut.index()][static_cast<size_t>(i)] ||
                  reaches[static_cast<size_t>(i)][cut.index()]);
    }
  }
  EXPECT_GE(cuts, 3);  // The three joins, at least.
  size_t free_ops = 0;
  for (int32_t i = 0; i < graph.num_ops(); ++i) free_ops += timings.free(OpId(i)) ? 1 : 0;
  EXPECT_EQ(covered, free_ops);
}

std::vector<bool> CutsOf(const Graph& graph, const std::vector<Piece>& pieces) {
  std::vector<bool> cut(static_cast<size_t>(graph.num_ops()), false);
  for (const Piece& piece : pieces) {
    if (piece.is_cut) cut[piece.free_ops[0].index()] = true;
  }
  return cut;
}

// The linear test of large graphs: every cut it finds is one (against the closure),
// it finds the joins of chained pieces, and the pieces cover the same ops.
TEST(DecompositionTest, SweepsFindOnlyCutsAndTheJoins) {
  int64_t found = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    const Graph graph = seed % 2 ? ChainOfRandomPieces(seed, 4, 5) : [&] {
      RandomDagOptions options;
      options.ops = 12;
      options.seed = seed;
      return RandomDag(options);
    }();
    const MemoryModel model(graph);
    for (const bool updates_asap : {false, true}) {
      const Timings timings(model, {.updates_asap = updates_asap});
      const std::vector<bool> exact = CutsOf(graph, Decompose(graph, timings));
      const std::vector<Piece> pieces = Decompose(graph, timings, /*closure_ops=*/0);
      const std::vector<bool> swept = CutsOf(graph, pieces);
      size_t covered = 0;
      for (const Piece& piece : pieces) covered += piece.free_ops.size();
      size_t free_ops = 0;
      for (int32_t i = 0; i < graph.num_ops(); ++i) free_ops += timings.free(OpId(i));
      ASSERT_EQ(covered, free_ops) << "seed " << seed;
      for (int32_t i = 0; i < graph.num_ops(); ++i) {
        ASSERT_TRUE(!swept[static_cast<size_t>(i)] || exact[static_cast<size_t>(i)])
            << "seed " << seed << " op " << i;
        found += swept[static_cast<size_t>(i)];
      }
      if (seed % 2) {
        EXPECT_EQ(swept, exact) << "seed " << seed;  // Nothing passes over a join.
      }
    }
  }
  EXPECT_GT(found, 200);
}

TEST(DecompositionTest, NeverChangesTheOptimum) {
  // Every piece searched to the end, from the eager order: the pieces' optima put
  // together are the optimum of the whole graph.
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const Graph graph = ChainOfRandomPieces(seed, 3, 3 + static_cast<int32_t>(seed % 2));
    const MemoryModel model(graph);
    const Timings timings(model, {.updates_asap = false});
    PiecewiseOptions options;
    options.stop_at_bound = false;
    const PiecewiseResult result =
        ImprovePieces(model, timings, ForcedLiveBytes(graph),
                      FollowRules(model, timings, EagerOrder(graph)), options, Budget());
    ASSERT_GT(result.pieces.size(), 3u);
    for (const PieceOutcome& piece : result.pieces) ASSERT_TRUE(piece.optimal);
    const int64_t optimum = testing::BruteForceOptimalPeak(graph);
    ASSERT_EQ(PeakOf(model, result.order), optimum) << "seed " << seed;
    ASSERT_EQ(result.proven_bound, optimum) << "seed " << seed;
  }
}

}  // namespace
}  // namespace olla
