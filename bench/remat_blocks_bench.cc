// Budget mode's search with repeated blocks decided together first (what olla does),
// and block by block only (src/olla/remat/repeated_blocks.h), aimed at FRACTION of the
// eager peak on the eager order: the greedy descents and pruning alone (no work or time
// limit), and the whole search within SECONDS. One JSON object per graph on stdout;
// driven by bench/remat_blocks.py, which writes bench/results/remat_blocks.md.
//
//   remat_blocks_bench FRACTION SECONDS GRAPH...
#include <chrono>
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "olla/analysis/lifetimes.h"
#include "olla/analysis/timeline.h"
#include "olla/io/graph_json.h"
#include "olla/remat/cost.h"
#include "olla/remat/remat_search.h"
#include "olla/remat/repeated_blocks.h"

namespace {

std::string Run(const olla::Graph& graph, const olla::Order& order,
                olla::RematOptions options, bool tied, double seconds_limit) {
  options.tie_repeated_blocks = tied;
  if (seconds_limit == 0) options.stall_rounds = 0;  // The descents and pruning only.
  const auto start = std::chrono::steady_clock::now();
  const olla::RematResult result = olla::Rematerialize(
      graph, order, options,
      seconds_limit == 0 ? olla::Budget() : olla::Budget::Of(seconds_limit));
  const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
  return fmt::format(
      R"({{"reached": {}, "peak_bytes": {}, "added_compute": {:.5f}, )"
      R"("measurements_to_reach": {}, "measurements": {}, "seconds": {:.3f}}})",
      result.reached, result.peak_bytes,
      static_cast<double>(result.added_cost) / static_cast<double>(olla::StepCost(graph)),
      result.measurements_to_reach, result.measurements, seconds.count());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: remat_blocks_bench FRACTION SECONDS GRAPH...\n");
    return 1;
  }
  const double fraction = std::stod(argv[1]);
  const double seconds = std::stod(argv[2]);
  for (int i = 3; i < argc; ++i) {
    olla::StatusOr<olla::Graph> graph = olla::LoadGraph(argv[i]);
    if (!graph.ok()) {
      std::fprintf(stderr, "%s: %s\n", argv[i], graph.status().message().c_str());
      return 1;
    }
    const olla::Order eager = olla::EagerOrder(*graph);
    const int64_t peak =
        olla::ComputeTimeline(*graph, eager, olla::ComputeLifetimes(*graph, eager))
            .peak_bytes;
    olla::RematOptions options;
    options.target_bytes = static_cast<int64_t>(static_cast<double>(peak) * fraction);
    const olla::RepeatedBlocks blocks = olla::FindRepeatedBlocks(*graph);
    fmt::print(
        R"({{"graph": "{}", "ops": {}, "blocks": {}, "families": {}, "eager_peak": {}, )"
        R"("target": {}, "tied": {}, "untied": {}, "tied_search": {}, )"
        R"("untied_search": {}}})"
        "\n",
        graph->name(), graph->num_ops(), blocks.members.size(), blocks.families, peak,
        options.target_bytes, Run(*graph, eager, options, true, 0),
        Run(*graph, eager, options, false, 0), Run(*graph, eager, options, true, seconds),
        Run(*graph, eager, options, false, seconds));
    std::fflush(stdout);
  }
  return 0;
}
