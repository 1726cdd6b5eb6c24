#include "olla/schedule/list_scheduler.h"

#include <algorithm>
#include <queue>
#include <tuple>

#include "olla/schedule/executor.h"

namespace olla {

std::string ListPolicyName(ListPolicy policy) {
  switch (policy) {
    case ListPolicy::kMemoryEffect:
      return "memory-effect";
    case ListPolicy::kLeastPeak:
      return "least-peak";
    case ListPolicy::kDepthFirst:
      return "dfs";
    case ListPolicy::kBreadthFirst:
      return "bfs";
  }
  return "?";
}

namespace {

// A candidate in the ready queue; smaller keys run first. A key can go stale when a
// buffer's last other holder runs; stale entries are recomputed on the way out.
struct Candidate {
  int64_t primary;
  int64_t secondary;
  OpId op;
  auto operator<=>(const Candidate&) const = default;
};

Candidate KeyOf(const Executor& executor, const MemoryModel& model, ListPolicy policy,
                OpId op, int64_t ready_counter) {
  const MemoryState& memory = executor.memory();
  switch (policy) {
    case ListPolicy::kMemoryEffect:
      return {model.allocated_bytes(op) - memory.BytesFreedBy(op), 0, op};
    case ListPolicy::kLeastPeak:  // The live bytes are common to every candidate.
      return {model.allocated_bytes(op) + model.graph().op(op).workspace,
              -memory.BytesFreedBy(op), op};
    case ListPolicy::kDepthFirst:
      return {-ready_counter, 0, op};
    case ListPolicy::kBreadthFirst:
      return {ready_counter, 0, op};
  }
  return {0, 0, op};
}

}  // namespace

Order ListSchedule(const MemoryModel& model, const Timings& timings, ListPolicy policy) {
  const Graph& graph = model.graph();
  const bool memory_aware =
      policy == ListPolicy::kMemoryEffect || policy == ListPolicy::kLeastPeak;
  Executor executor(model, timings);
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
  std::vector<int64_t> ready_counter(static_cast<size_t>(graph.num_ops()), 0);
  int64_t counter = 0;
  auto enqueue_ready = [&] {
    std::vector<OpId> ready = executor.TakeNewlyReady();
    // Depth first goes down the lowest-id branch first: it must be the newest.
    if (policy == ListPolicy::kDepthFirst) std::reverse(ready.begin(), ready.end());
    for (OpId op : ready) {
      ready_counter[op.index()] = counter++;
      queue.push(KeyOf(executor, model, policy, op, ready_counter[op.index()]));
    }
  };
  // Keys only improve (an op frees more as the other holders of its buffers run), and
  // they change exactly when a buffer is down to one holder: re-rank that holder then.
  auto rerank = [&] {
    for (BufferId b : executor.memory().TakeBuffersWithOneHolderLeft()) {
      if (!memory_aware) continue;
      auto consider = [&](OpId op) {
        if (op.valid() && timings.free(op) && executor.ready(op))
          queue.push(KeyOf(executor, model, policy, op, ready_counter[op.index()]));
      };
      consider(graph.producer(b));
      for (OpId user : graph.users(b)) consider(user);
    }
  };
  enqueue_ready();
  rerank();
  while (!executor.finished()) {
    const Candidate top = queue.top();
    queue.pop();
    if (executor.done(top.op)) continue;
    // A stale entry: a better one for the same op was pushed when its key improved.
    if (memory_aware &&
        KeyOf(executor, model, policy, top.op, ready_counter[top.op.index()]) != top) {
      continue;
    }
    executor.Run(top.op);
    enqueue_ready();
    rerank();
  }
  return executor.TakeOrder();
}

}  // namespace olla
