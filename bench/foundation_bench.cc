// How the foundation scales: loading, simulating and bounding generated training-like
// graphs of 1k to 100k ops. Run through `make bench` (bench/run.sh), which records the
// machine next to the numbers.
#include <filesystem>

#include <benchmark/benchmark.h>

#include "olla/analysis/lower_bounds.h"
#include "olla/generators/synthetic.h"
#include "olla/io/graph_json.h"
#include "olla/simulation/eager_report.h"

namespace olla {
namespace {

Graph Generated(int64_t ops) {
  TrainingLikeOptions options;
  options.layers = static_cast<int32_t>((ops - 1) / 3);
  return TrainingLikeGraph(options);
}

std::string GeneratedFile(int64_t ops) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("olla_bench_" + std::to_string(ops) + ".json.gz"))
                               .string();
  if (!std::filesystem::exists(path)) {
    const Status status = SaveGraph(Generated(ops), path);
    OLLA_CHECK(status.ok(), status.message());
  }
  return path;
}

void BM_LoadGraph(benchmark::State& state) {
  const std::string path = GeneratedFile(state.range(0));
  for (auto _ : state) {
    StatusOr<Graph> graph = LoadGraph(path);
    OLLA_CHECK(graph.ok(), graph.status().message());
    benchmark::DoNotOptimize(graph->num_ops());
  }
  state.counters["ops"] = static_cast<double>(state.range(0));
}

void BM_LowerBounds(benchmark::State& state) {
  const Graph graph = Generated(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(ComputeLowerBounds(graph).best());
}

void BM_SimulateEager(benchmark::State& state) {
  const Graph graph = Generated(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(SimulateEager(graph).peak_live_bytes);
}

BENCHMARK(BM_LoadGraph)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LowerBounds)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SimulateEager)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace olla

BENCHMARK_MAIN();
