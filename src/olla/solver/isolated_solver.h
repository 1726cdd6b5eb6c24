// IsolatedSolver: runs another MilpSolver in a child process.
//
// A MILP library that crashes must cost olla one solve, never the process and the
// user's run. Debian's CBC 2.10.8 does crash: a null dereference in
// CglPreProcess::postProcess when a MIP start is given and the time limit expires
// inside its preprocessing (decision 0004). The child solves and streams the result
// back through a pipe; when it dies instead, `failure` says how, and the result is the
// caller's start when it is feasible (FallBackToStart), else "no solution".
//
// The child is a fork while the process runs one thread. With more (Python with
// torch's thread pools), fork is unsafe (it copies one thread, and a lock another held
// would stay locked in the child), so a fresh worker process is started with the
// command the host registered (SetMilpWorkerCommand: the CLI runs itself with a hidden
// subcommand, the Python module its interpreter), and the model travels over a socket.
// With no command registered the solve runs in process, unguarded.
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
