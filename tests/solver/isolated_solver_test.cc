// The isolated solver passes results and errors through unchanged, and turns a
// solver that dies into "no solution" with the reason, in the parent still running.
#include "olla/solver/isolated_solver.h"

#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <mutex>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace olla {
namespace {

using ::testing::HasSubstr;

// A stand-in backend whose behaviour the test chooses.
class ScriptedSolver : public MilpSolver {
 public:
  enum class Act { kAnswer, kRefuse, kAbort, kExit };
  explicit ScriptedSolver(Act act) : act_(act) {}
  std::string name() const override { return "scripted"; }
  StatusOr<MilpResult> Solve(const MilpModel& model, const MilpOptions&) override {
    switch (act_) {
      case Act::kAbort:
        std::signal(SIGABRT, SIG_DFL);
        std::abort();
      case Act::kExit:
        std::_Exit(3);
      case Act::kRefuse:
        return InvalidInput("model has no variables");
      case Act::kAnswer:
        break;
    }
    MilpResult result;
    result.conclusion = MilpConclusion::kFeasible;
    result.values.assign(static_cast<size_t>(model.num_variables()), 0.5);
    result.values.back() = 1e300;  // Doubles cross the pipe bit for bit.
    result.objective = -7.25;
    result.best_bound = -9.5;
    return result;
  }

 private:
  Act act_;
};

MilpModel TwoVariables() {
  MilpModel model;
  const int32_t x = model.AddBinary("x", 1);
  const int32_t y = model.AddBinary("y", 1);
  model.AddConstraint("one", {{x, 1}, {y, 1}}, 1, 1);
  return model;
}

StatusOr<MilpResult> SolveWith(ScriptedSolver::Act act) {
  return MakeIsolatedSolver(std::make_unique<ScriptedSolver>(act))
      ->Solve(TwoVariables(), MilpOptions{});
}

TEST(IsolatedSolverTest, ResultsCrossUnchanged) {
  const StatusOr<MilpResult> result = SolveWith(ScriptedSolver::Act::kAnswer);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->conclusion, MilpConclusion::kFeasible);
  EXPECT_EQ(result->values, (std::vector<double>{0.5, 1e300}));
  EXPECT_EQ(result->objective, -7.25);
  EXPECT_EQ(result->best_bound, -9.5);
  EXPECT_TRUE(result->failure.empty());
}

TEST(IsolatedSolverTest, ErrorsCrossUnchanged) {
  const StatusOr<MilpResult> result = SolveWith(ScriptedSolver::Act::kRefuse);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(result.status().message(), "model has no variables");
}

TEST(IsolatedSolverTest, ACrashCostsOnlyTheSolve) {
  const StatusOr<MilpResult> result = SolveWith(ScriptedSolver::Act::kAbort);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->conclusion, MilpConclusion::kNoSolution);
  EXPECT_FALSE(result->has_bound());
  EXPECT_THAT(result->failure, HasSubstr("scripted killed by signal 6"));
}

TEST(IsolatedSolverTest, AFeasibleStartOutlivesACrash) {
  MilpOptions options;
  options.start = std::vector<double>{0.0, 1.0};
  const StatusOr<MilpResult> result =
      MakeIsolatedSolver(std::make_unique<ScriptedSolver>(ScriptedSolver::Act::kAbort))
          ->Solve(TwoVariables(), options);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->conclusion, MilpConclusion::kFeasible);
  EXPECT_EQ(result->values, *options.start);
  EXPECT_EQ(result->objective, 1.0);
  EXPECT_FALSE(result->has_bound());
  EXPECT_THAT(result->failure, HasSubstr("killed by signal 6"));

  options.start = std::vector<double>{1.0, 1.0};  // Breaks "x + y = 1": not kept.
  const StatusOr<MilpResult> infeasible =
      MakeIsolatedSolver(std::make_unique<ScriptedSolver>(ScriptedSolver::Act::kAbort))
          ->Solve(TwoVariables(), options);
  ASSERT_TRUE(infeasible.ok());
  EXPECT_EQ(infeasible->conclusion, MilpConclusion::kNoSolution);
}

TEST(IsolatedSolverTest, AnEarlyExitCostsOnlyTheSolve) {
  const StatusOr<MilpResult> result = SolveWith(ScriptedSolver::Act::kExit);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->conclusion, MilpConclusion::kNoSolution);
  EXPECT_THAT(result->failure, HasSubstr("scripted exited with status 3"));
}

// Keeps a second thread alive for its lifetime: the process is then one that must not
// fork a solver (Python with torch's thread pools is).
class SecondThread {
 public:
  SecondThread()
      : thread_([this] {
          std::unique_lock<std::mutex> lock(mutex_);
          done_.wait(lock, [this] { return stop_; });
        }) {}
  ~SecondThread() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    done_.notify_one();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_;
  bool stop_ = false;
  std::thread thread_;
};

// max 3a + 2b + 4c with a + b + c <= 2: a and c.
MilpModel SmallKnapsack() {
  MilpModel model;
  const int32_t a = model.AddBinary("a", 3);
  const int32_t b = model.AddBinary("b", 2);
  const int32_t c = model.AddBinary("c", 4);
  model.AddConstraint("two", {{a, 1}, {b, 1}, {c, 1}}, -kInfinity, 2);
  model.set_maximize(true);
  return model;
}

TEST(IsolatedSolverTest, FromAThreadedProcessAWorkerProcessSolves) {
  const SecondThread second;
  MilpOptions options;
  options.max_nodes = 1000;
  options.start = std::vector<double>{0.0, 1.0, 1.0};
  const StatusOr<MilpResult> expected = MakeCbcSolver()->Solve(SmallKnapsack(), options);
  ASSERT_TRUE(expected.ok());

  SetMilpWorkerCommand({OLLA_BINARY, "__milp-worker"});
  const StatusOr<MilpResult> worker =
      MakeDefaultMilpSolver()->Solve(SmallKnapsack(), options);
  ASSERT_TRUE(worker.ok());
  EXPECT_TRUE(worker->failure.empty()) << worker->failure;
  EXPECT_EQ(worker->conclusion, MilpConclusion::kOptimal);
  EXPECT_EQ(worker->values, expected->values);
  EXPECT_EQ(worker->objective, 7.0);

  // The worker is what runs: one that dies costs the solve, and the start stands.
  SetMilpWorkerCommand({"/bin/false"});
  const StatusOr<MilpResult> died =
      MakeDefaultMilpSolver()->Solve(SmallKnapsack(), options);
  ASSERT_TRUE(died.ok());
  EXPECT_THAT(died->failure, HasSubstr("exited with status 1"));
  EXPECT_EQ(died->values, *options.start);

  // A worker that cannot start: the solve falls back to a forked child.
  SetMilpWorkerCommand({"/nonexistent/olla-worker"});
  const StatusOr<MilpResult> here =
      MakeDefaultMilpSolver()->Solve(SmallKnapsack(), options);
  ASSERT_TRUE(here.ok());
  EXPECT_EQ(here->values, expected->values);
  SetMilpWorkerCommand({});
}

}  // namespace
}  // namespace olla
