// The conformance suite every MilpSolver backend must pass (one instantiation per
// backend): LP, MIP, infeasibility, limits with an incumbent, MIP starts, bad models.
#include <functional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "olla/solver/milp_solver.h"

namespace olla {
namespace {

using ::testing::HasSubstr;
using Factory = std::function<std::unique_ptr<MilpSolver>()>;

class MilpConformanceTest : public ::testing::TestWithParam<Factory> {
 protected:
  MilpResult Solve(const MilpModel& model, const MilpOptions& options = {}) {
    StatusOr<MilpResult> result = GetParam()()->Solve(model, options);
    OLLA_CHECK(result.ok(), result.status().message());
    return std::move(result).value();
  }
};

// max x + y  s.t.  x + 2y <= 4,  3x + y <= 6,  x, y >= 0: optimum 2.8 at (1.6, 1.2).
MilpModel TinyLp() {
  MilpModel model;
  const int32_t x = model.AddVariable("x", 0, kInfinity, 1, false);
  const int32_t y = model.AddVariable("y", 0, kInfinity, 1, false);
  model.AddConstraint("a", {{x, 1}, {y, 2}}, -kInfinity, 4);
  model.AddConstraint("b", {{x, 3}, {y, 1}}, -kInfinity, 6);
  model.set_maximize(true);
  return model;
}

// A knapsack: max 5a + 4b + 3c with 2a + 3b + c <= 5: a and b, value 9.
MilpModel Knapsack() {
  MilpModel model;
  const int32_t a = model.AddBinary("a", 5);
  const int32_t b = model.AddBinary("b", 4);
  const int32_t c = model.AddBinary("c", 3);
  model.AddConstraint("weight", {{a, 2}, {b, 3}, {c, 1}}, -kInfinity, 5);
  model.set_maximize(true);
  return model;
}

// Assign 12 jobs to 4 machines minimising the largest load: symmetric and slow to
// prove, so a tiny time limit leaves it unproven.
MilpModel Makespan(std::vector<double>& start) {
  MilpModel model;
  const int jobs = 12, machines = 4;
  const int32_t makespan = model.AddVariable("makespan", 0, kInfinity, 1, false);
  std::vector<std::vector<int32_t>> assign(jobs);
  for (int j = 0; j < jobs; ++j) {
    std::vector<MilpTerm> once;
    for (int m = 0; m < machines; ++m) {
      assign[j].push_back(
          model.AddBinary("x" + std::to_string(j) + "_" + std::to_string(m)));
      once.push_back({assign[j].back(), 1});
    }
    model.AddConstraint("job" + std::to_string(j), once, 1, 1);
  }
  for (int m = 0; m < machines; ++m) {
    std::vector<MilpTerm> load = {{makespan, -1}};
    for (int j = 0; j < jobs; ++j) load.push_back({assign[j][m], 10.0 + 7 * j % 13});
    model.AddConstraint("load" + std::to_string(m), load, -kInfinity, 0);
  }
  // Start: every job on machine 0.
  start.assign(static_cast<size_t>(model.num_variables()), 0.0);
  double total = 0;
  for (int j = 0; j < jobs; ++j) {
    start[static_cast<size_t>(assign[j][0])] = 1;
    total += 10.0 + 7 * j % 13;
  }
  start[static_cast<size_t>(makespan)] = total;
  return model;
}

TEST_P(MilpConformanceTest, TinyLp) {
  const MilpResult result = Solve(TinyLp());
  ASSERT_EQ(result.conclusion, MilpConclusion::kOptimal);
  EXPECT_NEAR(result.objective, 2.8, 1e-6);
  EXPECT_NEAR(result.values[0], 1.6, 1e-6);
  EXPECT_NEAR(result.values[1], 1.2, 1e-6);
}

TEST_P(MilpConformanceTest, TinyMip) {
  const MilpResult result = Solve(Knapsack());
  ASSERT_EQ(result.conclusion, MilpConclusion::kOptimal);
  EXPECT_NEAR(result.objective, 9, 1e-6);
  EXPECT_NEAR(result.values[0], 1, 1e-6);
  EXPECT_NEAR(result.values[1], 1, 1e-6);
  EXPECT_NEAR(result.values[2], 0, 1e-6);
  EXPECT_NEAR(result.best_bound, 9, 1e-6);
}

TEST_P(MilpConformanceTest, Infeasible) {
  MilpModel model;
  const int32_t x = model.AddBinary("x");
  const int32_t y = model.AddBinary("y");
  model.AddConstraint("too_much", {{x, 1}, {y, 1}}, 3, kInfinity);
  const MilpResult result = Solve(model);
  EXPECT_EQ(result.conclusion, MilpConclusion::kInfeasible);
  EXPECT_FALSE(result.has_solution());
}

TEST_P(MilpConformanceTest, NodeLimitKeepsTheIncumbentAndABound) {
  std::vector<double> start;
  const MilpModel model = Makespan(start);
  MilpOptions options;
  options.max_nodes = 1;
  options.start = start;
  const MilpResult result = Solve(model, options);
  ASSERT_TRUE(result.has_solution());
  EXPECT_LE(result.objective, model.Objective(start) + 1e-6);
  EXPECT_LE(result.nodes, 2);
  ASSERT_TRUE(result.has_bound());  // The root LP always runs before the node limit.
  EXPECT_LE(result.best_bound, result.objective + 1e-6);
  EXPECT_GE(result.best_bound, 0);
}

TEST_P(MilpConformanceTest, MipStartIsRespected) {
  // With no nodes to search, the start itself (or better) comes back.
  std::vector<double> start;
  const MilpModel model = Makespan(start);
  MilpOptions options;
  options.max_nodes = 0;
  options.start = start;
  const MilpResult result = Solve(model, options);
  ASSERT_TRUE(result.has_solution());
  EXPECT_LE(result.objective, model.Objective(start) + 1e-6);
}

TEST_P(MilpConformanceTest, BadModelsAreRejected) {
  auto error = [&](const MilpModel& model, const MilpOptions& options = {}) {
    return GetParam()()->Solve(model, options).status().message();
  };
  MilpModel reversed;
  reversed.AddVariable("z", 2, 1, 0, false);
  EXPECT_THAT(error(reversed),
              HasSubstr("variable 'z': lower bound 2 exceeds upper bound 1"));
  MilpModel dangling;
  dangling.AddBinary("x");
  dangling.AddConstraint("row", {{7, 1}}, 0, 1);
  EXPECT_THAT(error(dangling), HasSubstr("constraint 'row': no variable with index 7"));
  MilpModel not_a_number;
  const int32_t x = not_a_number.AddBinary("x");
  not_a_number.AddConstraint("row", {{x, std::nan("")}}, 0, 1);
  EXPECT_THAT(error(not_a_number), HasSubstr("coefficient of 'x' is not finite"));
  MilpModel twice;
  const int32_t y = twice.AddBinary("y");
  twice.AddConstraint("row", {{y, 1}, {y, 1}}, 0, 1);
  EXPECT_THAT(error(twice), HasSubstr("constraint 'row': variable 'y' appears twice"));
  MilpOptions short_start;
  short_start.start = std::vector<double>{1.0};
  EXPECT_THAT(error(Knapsack(), short_start), HasSubstr("MIP start has 1 values for 3"));
}

// The parameter is a function, which gtest cannot print: name each backend.
INSTANTIATE_TEST_SUITE_P(Cbc, MilpConformanceTest,
                         ::testing::Values(Factory(MakeCbcSolver)),
                         [](const auto&) { return std::string("in_process"); });
INSTANTIATE_TEST_SUITE_P(IsolatedCbc, MilpConformanceTest,
                         ::testing::Values(Factory(MakeDefaultMilpSolver)),
                         [](const auto&) { return std::string("child_process"); });

}  // namespace
}  // namespace olla
