#include "olla/schedule/lifetime_ilp.h"

#include <gtest/gtest.h>

#include "olla/analysis/topology.h"
#include "olla/generators/synthetic.h"
#include "olla/schedule/heuristics.h"
#include "olla/schedule/memory_state.h"

#include "graph_builder.h"
#include "reference.h"
#include "schedule_fixtures.h"

namespace olla {
namespace {

// Tests stop on work (CBC nodes), never on the clock.
Budget TestBudget() { return Budget::OfWork(1'000'000); }

TEST(LifetimeIlpTest, OneOpPerStepIsTheBruteForceOptimum) {
  for (uint64_t seed = 1; seed <= 25; ++seed) {
    const Graph graph =
        testing::RandomScheduleGraph(4 + static_cast<int32_t>(seed % 6), seed);
    const MemoryModel model(graph);
    LifetimeIlpOptions options;
    // Half the runs start from the eager order, half from nothing.
    if (seed % 2 == 0) options.start = EagerOrder(graph);
    const LifetimeIlpResult result = SolveLifetimeIlp(graph, options, TestBudget());
    ASSERT_TRUE(result.solved && result.optimal) << "seed " << seed;
    ASSERT_TRUE(CheckValidOrder(graph, result.order).ok()) << "seed " << seed;
    const int64_t optimum = testing::BruteForceOptimalPeak(graph);
    ASSERT_EQ(PeakOf(model, result.order), optimum) << "seed " << seed;
    ASSERT_EQ(result.model_peak_bytes, optimum) << "seed " << seed;
    ASSERT_EQ(result.model_bound_bytes, optimum) << "seed " << seed;
    ASSERT_EQ(result.steps, graph.num_ops());
  }
}

TEST(LifetimeIlpTest, Figure3) {
  const Graph graph = testing::Figure3Graph();
  LifetimeIlpOptions options;
  const LifetimeIlpResult result = SolveLifetimeIlp(graph, options, TestBudget());
  ASSERT_TRUE(result.optimal);
  EXPECT_EQ(result.model_peak_bytes, 47185920);
  EXPECT_EQ(result.order.ops, (std::vector<OpId>{OpId(0), OpId(2), OpId(1), OpId(3)}));
}

TEST(LifetimeIlpTest, PaperHorizonGivesValidOrdersAndOverCountsNothingBelowTheOptimum) {
  // Several ops share a step, all counted live together: the model's peak is at least
  // what the decoded order needs one op at a time.
  TrainingLikeOptions training;
  training.layers = 8;
  const Graph graph = TrainingLikeGraph(training);
  const MemoryModel model(graph);
  LifetimeIlpOptions options;
  options.horizon = IlpHorizon::kPaper;
  const LifetimeIlpResult result = SolveLifetimeIlp(graph, options, TestBudget());
  ASSERT_TRUE(result.solved);
  ASSERT_TRUE(CheckValidOrder(graph, result.order).ok());
  EXPECT_LE(PeakOf(model, result.order), result.model_peak_bytes);
  EXPECT_LT(result.steps, graph.num_ops());
}

TEST(LifetimeIlpTest, ATimeLimitInsideCbcPreprocessingCostsOnlyTheSolve) {
  // With a start and a limit that expires while CBC 2.10.8 preprocesses, CBC
  // dereferences null in CglPreProcess::postProcess (about a third of these limits on
  // this graph, on an idle machine). The solve runs in a child process, so this process
  // lives on; the result says how the solver died and claims no more than the start.
  const Graph graph = testing::RandomScheduleGraph(15, 6, 0.2);
  for (int step = 1; step <= 12; ++step) {
    LifetimeIlpOptions options;
    options.threads = 2;
    options.start = EagerOrder(graph);
    // wall clock: on purpose, to stop CBC inside its preprocessing; any outcome passes
    const LifetimeIlpResult result =  // as long as this process lives.
        SolveLifetimeIlp(graph, options, Budget::Of(0.01 * step));
    if (result.solved) {
      EXPECT_TRUE(CheckValidOrder(graph, result.order).ok());
    }
    if (!result.solver_failure.empty()) {
      EXPECT_EQ(result.order, *options.start);  // The start, all a dead solver leaves.
      EXPECT_EQ(result.model_bound_bytes, 0);   // It proves nothing.
    }
  }
}

}  // namespace
}  // namespace olla
