// The min-cut bound's max flow (analysis/min_cut_bound.h), library against library on
// the networks it really solves: the cuts at the 16 ops of largest eager live bytes of
// zoo training graphs. LEMON's Preflow (what olla uses, MaxFlow), Boost.Graph's
// push-relabel and its Boykov-Kolmogorov; every solver must give the same flow. Each
// time includes building the library's graph from the network. Run through `make
// bench`, which writes bench/results/max_flow.md.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/boykov_kolmogorov_max_flow.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>

#include "olla/analysis/min_cut_bound.h"
#include "olla/analysis/timeline.h"
#include "olla/io/graph_json.h"

namespace olla {
namespace {

std::vector<CutNetwork> NetworksOf(const std::string& model) {
  StatusOr<Graph> graph =
      LoadGraph(std::string(OLLA_SOURCE_DIR) + "/models/" + model + ".json.gz");
  OLLA_CHECK(graph.ok(), graph.status().message());
  const std::vector<int64_t> live = LiveBytesByOp(*graph, EagerOrder(*graph));
  std::vector<int32_t> ops(live.size());
  std::iota(ops.begin(), ops.end(), 0);
  std::stable_sort(ops.begin(), ops.end(),
                   [&](int32_t a, int32_t b) { return live[a] > live[b]; });
  std::vector<CutNetwork> networks;
  for (size_t k = 0; k < std::min<size_t>(16, ops.size()); ++k)
    networks.push_back(BuildCutNetwork(*graph, OpId(ops[k])));
  return networks;
}

using BkTraits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using BkGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS,
    boost::property<
        boost::vertex_index_t, long,
        boost::property<boost::vertex_color_t, boost::default_color_type,
                        boost::property<boost::vertex_distance_t, long,
                                        boost::property<boost::vertex_predecessor_t,
                                                        BkTraits::edge_descriptor>>>>,
    boost::property<boost::edge_capacity_t, int64_t,
                    boost::property<boost::edge_residual_capacity_t, int64_t,
                                    boost::property<boost::edge_reverse_t,
                                                    BkTraits::edge_descriptor>>>>;

template <typename FlowGraph>
FlowGraph BoostGraphOf(const CutNetwork& network) {
  FlowGraph graph(static_cast<size_t>(network.vertices));
  for (const CutNetwork::Edge& e : network.edges) {
    auto forward =
        boost::add_edge(static_cast<size_t>(e.from), static_cast<size_t>(e.to), graph)
            .first;
    auto backward =
        boost::add_edge(static_cast<size_t>(e.to), static_cast<size_t>(e.from), graph)
            .first;
    boost::put(boost::edge_capacity, graph, forward, e.capacity);
    boost::put(boost::edge_capacity, graph, backward, 0);
    boost::put(boost::edge_reverse, graph, forward, backward);
    boost::put(boost::edge_reverse, graph, backward, forward);
  }
  return graph;
}

using PrGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::no_property,
    boost::property<boost::edge_capacity_t, int64_t,
                    boost::property<boost::edge_residual_capacity_t, int64_t,
                                    boost::property<boost::edge_reverse_t,
                                                    BkTraits::edge_descriptor>>>>;

int64_t BoykovKolmogorov(const CutNetwork& network) {
  if (network.edges.empty()) return 0;
  BkGraph graph = BoostGraphOf<BkGraph>(network);
  return boost::boykov_kolmogorov_max_flow(graph, CutNetwork::kSource, CutNetwork::kSink);
}

int64_t BoostPushRelabelFlow(const CutNetwork& network) {
  if (network.edges.empty()) return 0;
  PrGraph graph = BoostGraphOf<PrGraph>(network);
  return boost::push_relabel_max_flow(graph, CutNetwork::kSource, CutNetwork::kSink);
}

template <int64_t (*Solve)(const CutNetwork&)>
void BM_MaxFlow(benchmark::State& state, const std::string& model) {
  const std::vector<CutNetwork> networks = NetworksOf(model);
  for (const CutNetwork& network : networks) {
    OLLA_CHECK(Solve(network) == MaxFlow(network), "max-flow solvers disagree");
  }
  for (auto _ : state) {
    int64_t total = 0;
    for (const CutNetwork& network : networks) total += Solve(network);
    benchmark::DoNotOptimize(total);
  }
  int64_t edges = 0;
  for (const CutNetwork& network : networks) edges += network.edges.size();
  state.counters["networks"] = static_cast<double>(networks.size());
  state.counters["edges/network"] = static_cast<double>(edges / networks.size());
}

void LemonPreflow(benchmark::State& state, const std::string& model) {
  BM_MaxFlow<MaxFlow>(state, model);
}
void BoostPushRelabel(benchmark::State& state, const std::string& model) {
  BM_MaxFlow<BoostPushRelabelFlow>(state, model);
}
void BoostBoykovKolmogorov(benchmark::State& state, const std::string& model) {
  BM_MaxFlow<BoykovKolmogorov>(state, model);
}

const char* const kModels[] = {"efficientnet_b0.train.b1", "googlenet.train.b1",
                               "transformer.train.b1", "gpt2_small.train.b32",
                               "vit_b_16.train.b1"};

int RegisterAll() {
  for (const char* model : kModels) {
    benchmark::RegisterBenchmark((std::string("lemon_preflow/") + model).c_str(),
                                 LemonPreflow, std::string(model))
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((std::string("boost_push_relabel/") + model).c_str(),
                                 BoostPushRelabel, std::string(model))
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(
        (std::string("boost_boykov_kolmogorov/") + model).c_str(), BoostBoykovKolmogorov,
        std::string(model))
        ->Unit(benchmark::kMillisecond);
  }
  return 0;
}
const int registered = RegisterAll();

}  // namespace
}  // namespace olla

BENCHMARK_MAIN();
