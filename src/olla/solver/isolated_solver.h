// IsolatedSolver: runs another MilpSolver in a child process.
//
// A MILP library that crashes must cost olla one solve, never the process and the
// user's run. Debian's CBC 2.10.8 does crash: a null dereference in
// CglPreProcess::postProcess when a MIP start is given and the time limit expires
// inside its preprocessing (decision 0004). The child solves and streams the result
// back through a pipe; when it dies instead, `failure` says how, and the result is the
// caller's start when it is feasible (FallBackToStart), else "no solution".
//
// Call it only while the calling process runs one thread (fork copies one thread,
// and a lock another thread held at that moment would stay locked in the child).
#pragma once

#include <memory>

#include "olla/solver/milp_solver.h"

namespace olla {

std::unique_ptr<MilpSolver> MakeIsolatedSolver(std::unique_ptr<MilpSolver> inner);

}  // namespace olla
