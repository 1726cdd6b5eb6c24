// olla generate: writes a synthetic graph (generators/generated.h), for trying olla and
// for benchmarks at scales no captured model reaches: a training step, or one of the
// shapes whose eager order is far from optimal (generators/hard_graphs.h).
#include <iostream>
#include <string>
#include <vector>

#include "olla/cli/commands.h"
#include "olla/cli/exit_codes.h"
#include "olla/cli/numbers.h"
#include "olla/generators/generated.h"
#include "olla/io/graph_json.h"

namespace olla::cli {
namespace {

struct GenerateOptions {
  int32_t ops = 1000;
  uint64_t seed = 1;
  std::string shape = "training";
  std::string output_path;
};

int RunGenerate(const GenerateOptions& options) {
  const StatusOr<Graph> graph = GenerateGraph(options.shape, options.ops, options.seed);
  if (!graph.ok()) return ReportError(graph.status());
  const Status status = SaveGraph(*graph, options.output_path);
  if (!status.ok()) return ReportError(status);
  std::cerr << "olla: wrote " << graph->num_ops() << " ops and " << graph->num_buffers()
            << " buffers to " << options.output_path << "\n";
  return kExitOk;
}

}  // namespace

void AddGenerateCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<GenerateOptions>();
  CLI::App* command = app.add_subcommand(
      "generate",
      "Write a synthetic training-step graph: a forward chain with skip connections, a "
      "backward pass and in-place SGD updates (3 ops per layer, plus the loss).");
  command->add_option("--ops", options->ops, "Approximate number of ops (at least 4)")
      ->check(IntegerIn(4, 30000000));
  command->add_option("--seed", options->seed, "Random seed (0 to 2^63-1)")
      ->check(IntegerIn(0, INT64_MAX));
  command
      ->add_option(
          "--shape", options->shape,
          "training: the training step above, whose eager order is already "
          "optimal; forward passes whose eager order is far from optimal "
          "(generators/hard_graphs.h): multi-branch (inception-like blocks listed "
          "breadth first), unet (stacked hourglasses with long skips), "
          "transformer (blocks with a tensor per head), layered (random "
          "layered DAGs), mixture (units of the four at random)")
      ->check(CLI::IsMember(
          std::vector<std::string>(kGeneratedShapes.begin(), kGeneratedShapes.end())))
      ->capture_default_str();
  command
      ->add_option("-o,--output", options->output_path,
                   "Output graph file (.json or .json.gz)")
      ->required();
  command->callback([options, &exit_code] { exit_code = RunGenerate(*options); });
}

}  // namespace olla::cli
