#include "olla/remat/recompute_floor.h"

#include "olla/analysis/lower_bounds.h"
#include "olla/plan/recompute_rules.h"
#include "olla/remat/recomputable.h"

namespace olla {
namespace {

// The floor when the buffers `kept` (by index) are never made again: at each op, its
// footprint (`whole`, every buffer counted) plus the kept buffers forced live there.
// `complete` is cleared when the budget did not reach every op.
FloorAt FloorKeeping(const Graph& graph, const std::vector<bool>& kept,
                     const std::vector<int64_t>& whole, const Budget& budget,
                     bool& complete) {
  std::vector<bool> freeable(kept.size());
  for (size_t b = 0; b < kept.size(); ++b) freeable[b] = !kept[b];
  // Both include the op's workspace: counted once below.
  const ForcedLive forced = ComputeForcedLive(graph, budget, kept);
  const std::vector<int64_t> footprints = SingleOpFootprints(graph, freeable);
  complete = complete && forced.complete();
  FloorAt floor;
  for (int32_t o = 0; o < graph.num_ops(); ++o) {
    const size_t i = static_cast<size_t>(o);
    const int64_t bytes = forced.bytes[i] + footprints[i] - graph.op(OpId(o)).workspace;
    if (floor.op.valid() && bytes <= floor.bytes) continue;
    floor.bytes = bytes;
    floor.op = OpId(o);
    floor.footprint_bytes = whole[i];
    floor.kept_bytes = bytes - whole[i];
  }
  return floor;
}

}  // namespace

std::vector<bool> BuffersNoRecomputationFrees(const Graph& graph) {
  std::vector<bool> kept(static_cast<size_t>(graph.num_buffers()), true);
  std::vector<int8_t> may_rerun(static_cast<size_t>(graph.num_ops()), -1);  // Unknown.
  for (int32_t b = 0; b < graph.num_buffers(); ++b) {
    const OpId producer = graph.producer(BufferId(b));
    if (!producer.valid()) continue;
    int8_t& rerun = may_rerun[producer.index()];
    if (rerun < 0) rerun = RecomputeRefusal(graph, producer).empty() ? 1 : 0;
    kept[static_cast<size_t>(b)] = rerun == 0;
  }
  return kept;
}

std::vector<bool> BuffersTheSearchNeverFrees(const Graph& graph, Reach reach) {
  const std::vector<char> copyable = FindRecomputableBuffers(graph, reach).copyable;
  std::vector<bool> kept(copyable.size());
  for (size_t b = 0; b < copyable.size(); ++b) kept[b] = !copyable[b];
  return kept;
}

FloorAt ComputeSearchedFloor(const Graph& graph, Reach reach, const Budget& budget) {
  bool complete = true;  // A weaker floor when not: still a floor.
  return FloorKeeping(graph, BuffersTheSearchNeverFrees(graph, reach),
                      SingleOpFootprints(graph), budget, complete);
}

RecomputeFloor ComputeRecomputeFloor(const Graph& graph, const Budget& budget) {
  const std::vector<int64_t> whole = SingleOpFootprints(graph);
  RecomputeFloor floor;
  floor.every_plan = FloorKeeping(graph, BuffersNoRecomputationFrees(graph), whole,
                                  budget.Split(0.5), floor.complete);
  floor.searched = FloorKeeping(graph, BuffersTheSearchNeverFrees(graph), whole, budget,
                                floor.complete);
  // Cut short, the second may have reached fewer ops than the first: what bounds
  // every plan bounds the searched ones too.
  if (floor.searched.bytes < floor.every_plan.bytes) floor.searched = floor.every_plan;
  return floor;
}

}  // namespace olla
