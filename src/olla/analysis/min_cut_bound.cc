#include "olla/analysis/min_cut_bound.h"

#include <algorithm>
#include <numeric>

#include <lemon/preflow.h>
#include <lemon/smart_graph.h>

namespace olla {
namespace {

enum class Side : uint8_t { kUnrelated, kAncestor, kDescendant };

// Marks with `mark` every op reached from v along `next` (successors or
// predecessors) that is still unrelated, and along the assumed edges in the same
// direction (`forward`: from before to after).
template <typename Next>
void MarkReached(OpId v, Side mark, Next next, std::span<const PrecedenceEdge> assumed,
                 bool forward, std::vector<Side>& side) {
  std::vector<OpId> stack = {v};
  auto reach = [&](OpId other) {
    if (side[other.index()] == Side::kUnrelated) {
      side[other.index()] = mark;
      stack.push_back(other);
    }
  };
  while (!stack.empty()) {
    const OpId op = stack.back();
    stack.pop_back();
    for (OpId other : next(op)) reach(other);
    for (const PrecedenceEdge& edge : assumed) {
      if ((forward ? edge.before : edge.after) == op)
        reach(forward ? edge.after : edge.before);
    }
  }
}

// v's ancestors and descendants (v itself counts as a descendant: not yet run).
std::vector<Side> SidesOf(const Graph& graph, OpId v,
                          std::span<const PrecedenceEdge> assumed) {
  std::vector<Side> side(static_cast<size_t>(graph.num_ops()), Side::kUnrelated);
  side[v.index()] = Side::kDescendant;
  MarkReached(
      v, Side::kDescendant, [&](OpId op) { return graph.successors(op); }, assumed,
      /*forward=*/true, side);
  MarkReached(
      v, Side::kAncestor, [&](OpId op) { return graph.predecessors(op); }, assumed,
      /*forward=*/false, side);
  return side;
}

}  // namespace

std::vector<OpId> UnrelatedOps(const Graph& graph, OpId op,
                               std::span<const PrecedenceEdge> assumed) {
  const std::vector<Side> side = SidesOf(graph, op, assumed);
  std::vector<OpId> unrelated;
  for (int32_t o = 0; o < graph.num_ops(); ++o) {
    if (side[static_cast<size_t>(o)] == Side::kUnrelated) unrelated.push_back(OpId(o));
  }
  return unrelated;
}

CutNetwork BuildCutNetwork(const Graph& graph, OpId v,
                           std::span<const PrecedenceEdge> assumed) {
  const std::vector<Side> side = SidesOf(graph, v, assumed);
  // Vertices: the source (run), the sink (not run), then the unrelated ops, then one
  // per buffer that needs one.
  constexpr int32_t kSource = CutNetwork::kSource;
  constexpr int32_t kSink = CutNetwork::kSink;
  CutNetwork network;
  int32_t& vertices = network.vertices;
  std::vector<CutNetwork::Edge>& edges = network.edges;
  int64_t& forced = network.forced;
  std::vector<int32_t> vertex(static_cast<size_t>(graph.num_ops()), -1);
  for (int32_t o = 0; o < graph.num_ops(); ++o) {
    if (side[static_cast<size_t>(o)] == Side::kUnrelated)
      vertex[static_cast<size_t>(o)] = vertices++;
  }
  int64_t infinite = 1;
  for (const Buffer& buffer : graph.buffers()) {
    if (!buffer.persistent) infinite += buffer.size;
  }
  forced = graph.op(v).workspace;
  // An op runs only after its predecessors: run (source side) implies they ran.
  for (int32_t o = 0; o < graph.num_ops(); ++o) {
    if (vertex[static_cast<size_t>(o)] < 0) continue;
    for (OpId previous : graph.predecessors(OpId(o))) {
      if (vertex[previous.index()] >= 0)
        edges.push_back(
            {vertex[static_cast<size_t>(o)], vertex[previous.index()], infinite});
    }
  }
  for (const PrecedenceEdge& edge : assumed) {
    if (vertex[edge.after.index()] >= 0 && vertex[edge.before.index()] >= 0)
      edges.push_back(
          {vertex[edge.after.index()], vertex[edge.before.index()], infinite});
  }
  for (int32_t b = 0; b < graph.num_buffers(); ++b) {
    const BufferId id(b);
    const Buffer& buffer = graph.buffer(id);
    if (buffer.persistent || buffer.size == 0) continue;
    const OpId producer = graph.producer(id);
    if (producer == v) {
      forced += buffer.size;  // Allocated by v: live when it runs.
      continue;
    }
    int32_t from = kSource;  // A graph input is live from the start.
    if (producer.valid()) {
      const Side s = side[producer.index()];
      if (s == Side::kDescendant) continue;  // Not allocated yet when v runs.
      if (s == Side::kUnrelated) from = vertex[producer.index()];
    }
    bool needed_later = buffer.output;  // Read by v, a descendant, or at the end.
    std::vector<int32_t> maybe_later;
    for (OpId user : graph.users(id)) {
      if (side[user.index()] == Side::kDescendant) needed_later = true;
      if (side[user.index()] == Side::kUnrelated)
        maybe_later.push_back(vertex[user.index()]);
    }
    if (needed_later) {
      if (from == kSource) {
        forced += buffer.size;
      } else {
        edges.push_back({from, kSink, buffer.size});
      }
      continue;
    }
    if (maybe_later.empty()) continue;  // Every user ran before v: dead.
    const int32_t node = vertices++;
    edges.push_back({from, node, buffer.size});
    for (int32_t user : maybe_later) edges.push_back({node, user, infinite});
  }
  return network;
}

int64_t MaxFlow(const CutNetwork& network) {
  if (network.edges.empty()) return 0;
  lemon::SmartDigraph graph;
  graph.reserveNode(network.vertices);
  graph.reserveArc(static_cast<int>(network.edges.size()));
  for (int32_t v = 0; v < network.vertices; ++v) graph.addNode();
  lemon::SmartDigraph::ArcMap<int64_t> capacity(graph);
  for (const CutNetwork::Edge& e : network.edges)
    capacity[graph.addArc(graph.nodeFromId(e.from), graph.nodeFromId(e.to))] = e.capacity;
  lemon::Preflow<lemon::SmartDigraph, lemon::SmartDigraph::ArcMap<int64_t>> preflow(
      graph, capacity, graph.nodeFromId(CutNetwork::kSource),
      graph.nodeFromId(CutNetwork::kSink));
  preflow.runMinCut();  // The first phase alone: the flow's value and a minimum cut.
  return preflow.flowValue();
}

int64_t MinCutLiveBytes(const Graph& graph, OpId v,
                        std::span<const PrecedenceEdge> assumed) {
  const CutNetwork network = BuildCutNetwork(graph, v, assumed);
  return network.forced + MaxFlow(network);
}

MinCutResult MinCutBound(const Graph& graph, const std::vector<int64_t>& live_bytes,
                         int64_t bound, int64_t target, const Budget& budget) {
  MinCutResult result;
  result.bound_bytes = bound;
  std::vector<int32_t> candidates;
  for (int32_t o = 0; o < graph.num_ops(); ++o) {
    if (live_bytes[static_cast<size_t>(o)] > bound) candidates.push_back(o);
  }
  std::stable_sort(candidates.begin(), candidates.end(), [&](int32_t a, int32_t b) {
    return live_bytes[static_cast<size_t>(a)] > live_bytes[static_cast<size_t>(b)];
  });
  result.complete = true;
  for (const int32_t o : candidates) {
    if (result.bound_bytes >= target) break;
    // An op whose order's live bytes are at or below the bound cannot raise it.
    if (live_bytes[static_cast<size_t>(o)] <= result.bound_bytes) break;
    if (budget.OutOfTime()) {
      result.complete = false;
      break;
    }
    const int64_t cut = MinCutLiveBytes(graph, OpId(o));
    ++result.ops_computed;
    if (cut > result.bound_bytes) {
      result.bound_bytes = cut;
      result.op = OpId(o);
    }
  }
  return result;
}

}  // namespace olla
