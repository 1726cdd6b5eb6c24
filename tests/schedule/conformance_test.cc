// The conformance suite of the schedulers: every method of Schedule() on the same
// cases (random DAGs with optimizer updates, and the hard shapes `olla generate`
// writes), held to what every scheduler promises: a valid order whose peak is the
// one reported, never above its start (the best heuristic's order, the eager order's
// under the rules for "eager") nor the eager order's, never below the proven bound and
// at it exactly when claimed optimal; the same result for the same work limit; and
// with no work at all, still a valid order. Below it, the same promises of each search
// behind the interface (order_search.h) run alone from the eager order under the rules.
#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "olla/analysis/lower_bounds.h"
#include "olla/analysis/topology.h"
#include "olla/generators/generated.h"
#include "olla/schedule/memory_state.h"
#include "olla/schedule/order_search.h"
#include "olla/schedule/order_searches.h"
#include "olla/schedule/scheduler.h"
#include "olla/schedule/search_wrappers.h"

#include "schedule_fixtures.h"

namespace olla {
namespace {

struct Case {
  std::string name;
  Graph graph;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  cases.push_back({"random_small", testing::RandomScheduleGraph(8, 4, 0.2)});
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    cases.push_back({"random_" + std::to_string(seed),
                     testing::RandomScheduleGraph(16, seed, /*optimizer_chance=*/0.2)});
  }
  for (const char* shape :
       {"training", "multi-branch", "unet", "transformer", "layered", "mixture"}) {
    cases.push_back({shape, *GenerateGraph(shape, 40, 1)});
  }
  return cases;
}

class ScheduleConformanceTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ScheduleConformanceTest, KeepsEveryPromiseOnEveryCase) {
  ScheduleOptions options;
  options.method = GetParam();
  // Work units are search nodes and moves, or for the lifetime ILP branch-and-bound
  // nodes, each a linear program: fewer of those.
  const int64_t work = options.method == "ilp" ? 50 : 20'000;
  for (const Case& c : Cases()) {
    // The lifetime ILP's linear programs take seconds on 16 ops and minutes on the
    // 40-op shapes: the small case only.
    if (options.method == "ilp" && c.name != "random_small") continue;
    SCOPED_TRACE(c.name);
    const StatusOr<ScheduleResult> result =
        Schedule(c.graph, options, Budget::OfWork(work));
    ASSERT_TRUE(result.ok()) << result.status().message();
    ASSERT_TRUE(CheckValidOrder(c.graph, result->order).ok());
    EXPECT_EQ(PeakOf(MemoryModel(c.graph), result->order), result->peak_bytes);
    EXPECT_LE(result->peak_bytes, result->best_heuristic_peak_bytes);
    EXPECT_LE(result->peak_bytes, result->eager_peak_bytes);
    EXPECT_LE(result->lower_bound_bytes, result->peak_bytes);
    EXPECT_EQ(result->optimal, result->peak_bytes == result->lower_bound_bytes);
    if (result->optimal) {
      EXPECT_EQ(result->stopped_by, Budget::Limit::kNone);
    }

    const StatusOr<ScheduleResult> again =
        Schedule(c.graph, options, Budget::OfWork(work));
    EXPECT_EQ(again->order.ops, result->order.ops) << "not deterministic";

    const StatusOr<ScheduleResult> starved =
        Schedule(c.graph, options, Budget::OfWork(0));
    ASSERT_TRUE(starved.ok());
    EXPECT_TRUE(CheckValidOrder(c.graph, starved->order).ok());
    EXPECT_LE(starved->peak_bytes, starved->eager_peak_bytes);
  }
}

std::string MethodName(const ::testing::TestParamInfo<const char*>& method) {
  return method.param;
}

INSTANTIATE_TEST_SUITE_P(EveryMethod, ScheduleConformanceTest,
                         ::testing::ValuesIn(kScheduleMethods), MethodName);

struct Search {
  std::string name;
  std::function<std::unique_ptr<OrderSearch>()> make;
};

class OrderSearchConformanceTest : public ::testing::TestWithParam<Search> {};

TEST_P(OrderSearchConformanceTest, NeverWorsensItsStartAndKeepsItsBoundSound) {
  const std::unique_ptr<OrderSearch> search = GetParam().make();
  for (const Case& c : Cases()) {
    if (GetParam().name == "lifetime_ilp" && c.name != "random_small") continue;
    SCOPED_TRACE(c.name);
    const MemoryModel model(c.graph);
    ScheduleOptions options;
    const std::vector<int64_t> forced_live = ComputeForcedLive(c.graph, Budget()).bytes;
    const SearchContext context(model, options.rules, forced_live, options);
    SearchState state;
    const ScoredOrder start = EagerSchedule(model, options.rules);
    state.StartFrom(start);
    state.result.eager_peak_bytes = PeakOf(model, EagerOrder(c.graph));
    state.result.lower_bound_bytes =
        *std::max_element(forced_live.begin(), forced_live.end());
    const int64_t start_bound = state.result.lower_bound_bytes;

    search->Improve(context, state, Budget::OfWork(20'000));
    ASSERT_TRUE(CheckValidOrder(c.graph, state.result.order).ok());
    EXPECT_EQ(PeakOf(model, state.result.order), state.result.peak_bytes);
    EXPECT_LE(state.result.peak_bytes, start.peak_bytes);
    EXPECT_GE(state.result.lower_bound_bytes, start_bound);
    EXPECT_LE(state.result.lower_bound_bytes, state.result.peak_bytes);
  }
}

std::string SearchName(const ::testing::TestParamInfo<Search>& search) {
  return search.param.name;
}

INSTANTIATE_TEST_SUITE_P(
    EverySearch, OrderSearchConformanceTest,
    ::testing::Values(
        Search{"heuristics", HeuristicSearch}, Search{"pieces", PieceSearch},
        Search{"lifetime_ilp", LifetimeIlpSearch}, Search{"local", LocalOrderSearch},
        Search{"bound_raising", [] { return RaisingTheBound(LocalOrderSearch()); }},
        Search{"share", [] { return WithShare(0.5, PieceSearch()); }},
        Search{"updates_rule_fallback",
               [] { return UpdatesRuleFallback(HeuristicSearch()); }}),
    SearchName);

}  // namespace
}  // namespace olla
