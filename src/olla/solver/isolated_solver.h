// IsolatedSolver: runs another MilpSolver in a child process.
//
// A MILP library that crashes must cost olla one solve, never the process and the
// user's run. Debian's CBC 2.10.8 does crash: a null dereference in
// CglPreProcess::postProcess, rarely, when a loaded machine lets the time limit expire
// inside its preprocessing. The child solves and streams the result back through a
// pipe; when it dies instead, the result is "no solution" with `failure` saying how,
// and callers keep the incumbent they already have.
//
// Call it only while the calling process runs one thread (fork copies one thread,
// and a lock another thread held at that moment would stay locked in the child).
#pragma once

#include <memory>

#include "olla/solver/milp_solver.h"

namespace olla {

std::unique_ptr<MilpSolver> MakeIsolatedSolver(std::unique_ptr<MilpSolver> inner);

}  // namespace olla
