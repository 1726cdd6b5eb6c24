// IsolatedSolver: runs another MilpSolver in a child process.
//
// A MILP library that crashes must cost olla one solve, never the process and the
// user's run. Debian's CBC 2.10.8 does crash: a null dereference in
// CglPreProcess::postProcess when a MIP start is given and the time limit expires
// inside its preprocessing (decision 0004). The child solves and streams the result
// back through a pipe; when it dies instead, `failure` says how, and the result is the
// caller's start when it is feasible (FallBackToStart), else "no solution".
//
// With threads running (Python with torch's pools; every process that links CBC has
// OpenBLAS's), fork is unsafe in principle (it copies one thread, and a lock another
// held would stay locked in the child), so where the host registered a worker command
// (SetMilpWorkerCommand: the CLI runs itself with a hidden subcommand, the Python
// module its interpreter) a fresh worker process is started with it and the model
// travels over a socket. Otherwise (one thread, or no command: the tests) the child
// is a fork; a worker that cannot start falls back to one as well.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "olla/solver/milp_solver.h"

namespace olla {

std::unique_ptr<MilpSolver> MakeIsolatedSolver(std::unique_ptr<MilpSolver> inner);

// argv of a process that calls RunMilpWorker() and exits with its result.
void SetMilpWorkerCommand(std::vector<std::string> command);

// The worker's side: reads a model from descriptor 3, solves it with CBC, writes the
// result back. Returns the exit code (0 when the result was written).
int RunMilpWorker();

}  // namespace olla
