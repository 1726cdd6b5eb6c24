// The fewest bytes that must be live for runs to make a set of buffers: the cut both
// floor proofs (order_floor_proof.h, recompute_floor_proof.h) charge for what a later
// reader needs.
#pragma once

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "olla/analysis/min_cut_bound.h"
#include "olla/core/budget.h"
#include "olla/graph/graph.h"

namespace olla {

// The fewest bytes, besides the buffers `live(b)` accepts, whose being live lets runs
// make every one of `sinks` from them: a minimum vertex cut between the sinks and what
// no run can make (`made_by(b)`: the op whose run may make b, or an invalid id). Each
// buffer is an in and an out vertex with its size between them (a run that reads it
// keeps it); one no run makes is fed from the source, a made one from each input of
// its producer that is neither persistent nor live. LEMON's max flow (min_cut_bound.h),
// one unit of `budget`. `node` is scratch, by buffer, every entry -1 (and left so).
// `reached`, when given, receives the network's buffers: every path the cut stops lies
// within them, so a second cut that takes them as live counts no byte twice.
template <typename Live, typename MadeBy>
int64_t MinMakeCut(const Graph& graph, const std::vector<BufferId>& sinks, Live&& live,
                   MadeBy&& made_by, std::vector<int32_t>& node, const Budget& budget,
                   std::vector<BufferId>* reached_out = nullptr) {
  constexpr int64_t kUncuttable = std::numeric_limits<int64_t>::max() / 4;
  CutNetwork network;
  std::vector<BufferId> reached;
  auto vertex = [&](BufferId b) {
    int32_t& v = node[b.index()];
    if (v < 0) {
      v = network.vertices;
      network.vertices += 2;
      reached.push_back(b);
    }
    return v;
  };
  for (BufferId b : sinks)
    if (!live(b))
      network.edges.push_back({vertex(b) + 1, CutNetwork::kSink, kUncuttable});
  for (size_t next = 0; next < reached.size(); ++next) {
    const BufferId b = reached[next];
    const int32_t in = node[b.index()];
    network.edges.push_back({in, in + 1, graph.buffer(b).size});
    const OpId producer = made_by(b);
    if (!producer.valid()) {
      network.edges.push_back({CutNetwork::kSource, in, kUncuttable});
      continue;
    }
    for (BufferId input : graph.op(producer).uses) {
      if (graph.buffer(input).persistent || live(input)) continue;
      network.edges.push_back({vertex(input) + 1, in, kUncuttable});
    }
  }
  for (BufferId b : reached) node[b.index()] = -1;
  if (reached_out != nullptr) *reached_out = std::move(reached);
  if (network.edges.empty()) return 0;
  budget.Spend();
  // Push-relabel pushes from the source: from the side with fewer edges (reversed, the
  // same cut), the flow the cut stops stays near them (the transformer at batch 32: 13
  // times faster from a few sinks than from every buffer no run makes).
  int64_t from_source = 0;
  for (const CutNetwork::Edge& e : network.edges)
    from_source += e.from == CutNetwork::kSource ? 1 : e.to == CutNetwork::kSink ? -1 : 0;
  if (from_source > 0) {
    for (CutNetwork::Edge& e : network.edges) {
      std::swap(e.from, e.to);
      for (int32_t* end : {&e.from, &e.to}) {
        if (*end == CutNetwork::kSource)
          *end = CutNetwork::kSink;
        else if (*end == CutNetwork::kSink)
          *end = CutNetwork::kSource;
      }
    }
  }
  return MaxFlow(network);
}

}  // namespace olla
